;;; emacs_driver.el --- drive eglot against the codequorum server in a batch Emacs  -*- lexical-binding: t -*-

;; The documented configuration is loaded before this file.  This opens a Python file whose
;; function has stored versions, lets eglot start the server as it does for a user, and
;; records what eglot shows: the diagnostic (through Flymake), the hover (as eglot renders
;; it), the code actions; runs two command actions by picking them from eglot's own menu
;; (the picks, and the answer to the question the server asks, are read from standard
;; input, as a batch Emacs reads the minibuffer); then shuts the server down and writes
;; everything as JSON.  Input and output paths come from the environment.

(require 'cl-lib)
(require 'eglot)
(require 'flymake)

(defvar cq-input
  (with-temp-buffer
    (insert-file-contents (getenv "CQ_EMACS_INPUT"))
    (json-parse-buffer :object-type 'alist)))
(defvar cq-timeout (alist-get 'timeout_s cq-input))
(defvar cq-out nil "What is written at the end, an alist.")
(defvar cq-steps nil)
(defvar cq-messages nil "The server's window/showMessage notifications: (type message).")
(defvar cq-questions nil "The server's questions: (message titles answer).")

;; A batch Emacs reads the minibuffer as a line of standard input and drops its initial
;; contents; in a real minibuffer RET accepts them.  eglot 1.9 puts the first action of a
;; question there, so an empty line stands for RET.
(advice-add 'completing-read :around
            (lambda (read prompt collection &optional predicate require-match initial &rest more)
              (let ((typed (apply read prompt collection predicate require-match initial more)))
                (if (and (equal typed "") initial)
                    (if (consp initial) (car initial) initial)
                  typed))))

(defun cq-put (key value) (setf (alist-get key cq-out) value))
(defun cq-step (name) (push name cq-steps))

(defun cq-wait (what predicate)
  "Let Emacs read the server until PREDICATE holds; fail after `cq-timeout' seconds."
  (let ((deadline (+ (float-time) cq-timeout)) value)
    (while (and (not (setq value (funcall predicate))) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (or value (error "No %s within %s s" what cq-timeout))))

(advice-add 'eglot-handle-notification :before
            (lambda (_server method &rest params)
              (when (eq method 'window/showMessage)
                (push (list (plist-get params :type) (plist-get params :message))
                      cq-messages))))

(advice-add 'eglot-handle-request :around
            (lambda (handle server method &rest params)
              (let ((answer (apply handle server method params)))
                (when (eq method 'window/showMessageRequest)
                  (push (list (plist-get params :message)
                              (mapcar (lambda (a) (plist-get a :title))
                                      (append (plist-get params :actions) nil))
                              (if (eq answer :null) nil (plist-get answer :title)))
                        cq-questions))
                answer)))

(defun cq-position (line character)
  "The point of LSP LINE and CHARACTER (the file is ASCII)."
  (save-excursion
    (goto-char (point-min))
    (forward-line line)
    (+ (point) character)))

(defun cq-diagnostics ()
  (mapcar (lambda (d)
            (let ((beg (flymake-diagnostic-beg d)) (end (flymake-diagnostic-end d)))
              `((text . ,(flymake-diagnostic-text d))
                (type . ,(symbol-name (flymake-diagnostic-type d)))
                (line . ,(1- (line-number-at-pos beg)))
                (column . ,(save-excursion (goto-char beg) (current-column)))
                (end_column . ,(save-excursion (goto-char end) (current-column))))))
          (flymake-diagnostics)))

(defun cq-hover (server)
  "The hover at point, asked again while the server is still comparing the versions:
the raw contents and eglot's rendering of them."
  (cq-wait "finished hover"
           (lambda ()
             (let* ((hover (jsonrpc-request server :textDocument/hover
                                            (eglot--TextDocumentPositionParams)))
                    (contents (plist-get hover :contents)))
               (unless (string-match-p "comparing the versions"
                                       (or (plist-get contents :value) ""))
                 `((kind . ,(plist-get contents :kind))
                   (value . ,(plist-get contents :value))
                   (shown . ,(eglot--hover-info contents))))))))

(defun cq-action-json (action)
  (let ((command (plist-get action :command)))
    `((title . ,(plist-get action :title))
      (kind . ,(or (plist-get action :kind) :null))
      (preferred . ,(if (plist-get action :isPreferred) t :false))
      (edit . ,(if (plist-get action :edit) t :false))
      (command . ,(if command (plist-get command :command) :null))
      (arguments . ,(if command (plist-get command :arguments) :null)))))

(defun cq-pick-action (server actions)
  "Run one of ACTIONS as `eglot-code-actions' does when called from the keyboard: the
title is read in the minibuffer (here: standard input)."
  (let ((last-nonmenu-event ?\r))
    (eglot--read-execute-code-action actions server)))

(defun cq-message-matching (regexp)
  "The first message matching REGEXP, as a vector [type message]."
  (cl-some (lambda (m) (and (string-match-p regexp (cadr m)) (vconcat m))) cq-messages))

(defun cq-shut-down (server)
  "What `eglot-shutdown' sends (shutdown, then exit), then let the process end by itself:
Emacs 28's jsonrpc would delete it right after the exit notification."
  (let ((process (jsonrpc--process server)))
    (setf (eglot--shutdown-requested server) t)
    (jsonrpc-request server :shutdown nil)
    (cq-put 'shutdown "answered")
    (jsonrpc-notify server :exit nil)
    (cq-wait "server exit" (lambda () (not (process-live-p process))))
    (cq-put 'exit_status (process-exit-status process))
    (cq-put 'stderr (with-current-buffer (jsonrpc-stderr-buffer server) (buffer-string)))))

(defun cq-run ()
  (find-file (alist-get 'file cq-input))
  (cq-put 'major_mode (symbol-name major-mode))
  ;; `eglot-ensure' connects from `post-command-hook', which a batch Emacs never runs
  (run-hooks 'post-command-hook)
  (let ((server (cq-wait "eglot connection"
                         (lambda () (and eglot--managed-mode (eglot-current-server))))))
    (cq-step "connected")
    (cq-put 'root (project-root (eglot--project server)))
    (cq-put 'hover_formats
            (plist-get (plist-get (plist-get (eglot-client-capabilities server)
                                             :textDocument)
                                  :hover)
                       :contentFormat))
    (flymake-start)
    (cq-put 'diagnostics (cq-wait "diagnostics"
                                  (lambda () (and (flymake-diagnostics)
                                                  (vconcat (cq-diagnostics))))))
    (cq-step "diagnostics")
    (goto-char (cq-position (alist-get 'hover_line cq-input)
                            (alist-get 'hover_character cq-input)))
    (cq-put 'hover (cq-hover server))
    (cq-step "hover")
    (let ((actions (cq-wait "code actions with edits"
                            (lambda ()
                              (let ((found (eglot-code-actions (point) (point))))
                                (and (cl-some (lambda (a) (plist-get a :edit)) found)
                                     found))))))
      (cq-put 'actions (vconcat (mapcar #'cq-action-json actions)))
      (cq-step "actions")
      ;; Compare, picked by its title: the server says how the versions differ
      (cq-pick-action server actions)
      (cq-put 'compared (cq-wait "the comparison" (lambda ()
                                                   (cq-message-matching "Most different: "))))
      (cq-step "compare")
      ;; Run the versions: the server asks about a store it did not make; RET answers
      (cq-pick-action server actions)
      (cq-put 'refused (cq-wait "the refusal" (lambda ()
                                               (cq-message-matching "were not run"))))
      (cq-step "question"))
    (cq-shut-down server)
    (cq-step "shutdown")))

(condition-case err
    (cq-run)
  (error (cq-put 'error (error-message-string err))
         (let ((server (ignore-errors (eglot-current-server))))
           (when server
             (cq-put 'events (with-current-buffer (jsonrpc-events-buffer server)
                               (buffer-substring-no-properties
                                (max (point-min) (- (point-max) 20000)) (point-max))))))))
(cq-put 'steps (vconcat (reverse cq-steps)))
(cq-put 'messages (vconcat (mapcar #'vconcat (reverse cq-messages))))
(cq-put 'questions
        (vconcat (mapcar (lambda (q) `((message . ,(nth 0 q))
                                       (actions . ,(vconcat (nth 1 q)))
                                       (answer . ,(or (nth 2 q) :null))))
                         (reverse cq-questions))))
(with-temp-file (getenv "CQ_EMACS_OUTPUT")
  (insert (json-serialize cq-out)))
(kill-emacs 0)
