-- Drives a headless Neovim in which the documented configuration started the codequorum
-- server: adds versions of one function, saves, waits for the diagnostics, asks for a hover
-- and writes what Neovim reports as JSON. Input and output paths come from the environment.
local input = vim.fn.json_decode(table.concat(vim.fn.readfile(vim.env.CQ_NVIM_INPUT), "\n"))
local out = { steps = {} }

local function log(step)
  table.insert(out.steps, step)
end

local function finish()
  vim.fn.writefile({ vim.fn.json_encode(out) }, vim.env.CQ_NVIM_OUTPUT)
  vim.cmd("qall!")
end

local function find_client(bufnr)
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients
  for _, client in ipairs(get()) do
    if client.name == "codequorum" and vim.lsp.buf_is_attached(bufnr, client.id) then
      return client
    end
  end
  return nil
end

local function request(client, method, params, bufnr, timeout_ms)
  local answer = nil
  local ok, id = client.request(method, params, function(err, result)
    answer = { err = err, result = result }
  end, bufnr)
  if not ok then
    error(method .. ": request not sent")
  end
  if not vim.wait(timeout_ms, function() return answer ~= nil end, 20) then
    client.cancel_request(id)
    error(method .. ": no answer within " .. timeout_ms .. " ms")
  end
  if answer.err ~= nil then
    error(method .. ": " .. vim.inspect(answer.err))
  end
  return answer.result
end

local function run()
  local v = vim.version()
  out.nvim = string.format("%d.%d.%d", v.major, v.minor, v.patch)
  local bufnr = vim.api.nvim_get_current_buf()
  out.filetype = vim.bo[bufnr].filetype

  local client = nil
  local attached = vim.wait(input.timeout_ms, function()
    client = find_client(bufnr)
    return client ~= nil and client.server_capabilities ~= nil
      and next(client.server_capabilities) ~= nil
  end, 20)
  if not attached then
    error("no codequorum client attached to the buffer")
  end
  log("attached")
  out.root_dir = client.config.root_dir
  out.init_options = client.config.init_options
  out.cwd = vim.fn.getcwd()
  out.clients = #vim.tbl_filter(function(c)
    return c.name == "codequorum"
  end, (vim.lsp.get_clients or vim.lsp.get_active_clients)())

  local uri = vim.uri_from_bufnr(bufnr)
  out.uri = uri
  out.added = request(client, "workspace/executeCommand", {
    command = "codequorum.addVersions",
    arguments = { { uri = uri, qualifiedName = input.qualified_name, samples = input.samples } },
  }, bufnr, input.timeout_ms)
  log("added")

  vim.cmd("write")
  log("saved")
  if not vim.wait(input.timeout_ms, function()
    return #vim.diagnostic.get(bufnr) > 0
  end, 20) then
    error("no diagnostics within " .. input.timeout_ms .. " ms")
  end
  out.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local lsp = (d.user_data or {}).lsp or {}
    table.insert(out.diagnostics, {
      lnum = d.lnum,
      col = d.col,
      end_lnum = d.end_lnum,
      end_col = d.end_col,
      severity = d.severity,
      source = d.source,
      message = d.message,
      code = d.code or lsp.code,
    })
  end
  log("diagnostics")

  -- a hover answers at once; while the comparison runs it says so: ask again until done
  local deadline = vim.loop.now() + input.timeout_ms
  repeat
    local hover = request(client, "textDocument/hover", {
      textDocument = { uri = uri },
      position = { line = input.hover_line, character = input.hover_character },
    }, bufnr, input.timeout_ms)
    out.hover = nil
    if hover ~= nil and hover ~= vim.NIL then
      out.hover = table.concat(vim.lsp.util.convert_input_to_markdown_lines(hover.contents), "\n")
    end
    local computing = out.hover ~= nil and out.hover:find("comparing the versions", 1, true)
    if computing then
      vim.wait(100)
    end
  until not computing or vim.loop.now() > deadline
  log("hover")

  -- the code actions at the same place: Neovim 0.7 draws no lenses by itself, so the
  -- commands come as actions too
  local actions = request(client, "textDocument/codeAction", {
    textDocument = { uri = uri },
    range = {
      start = { line = input.hover_line, character = input.hover_character },
      ["end"] = { line = input.hover_line, character = input.hover_character },
    },
    context = { diagnostics = {} },
  }, bufnr, input.timeout_ms)
  out.actions = {}
  for _, action in ipairs(actions or {}) do
    table.insert(out.actions, {
      title = action.title,
      kind = action.kind,
      command = action.command and action.command.command or vim.NIL,
    })
  end
  log("actions")

  -- a second Python file of the same project shares the running server
  vim.cmd("edit " .. vim.fn.fnameescape(input.second_file))
  local second = vim.api.nvim_get_current_buf()
  if not vim.wait(input.timeout_ms, function() return find_client(second) ~= nil end, 20) then
    error("no codequorum client attached to the second buffer")
  end
  out.second_client_same = find_client(second).id == client.id
  out.clients_after_second = #vim.tbl_filter(function(c)
    return c.name == "codequorum"
  end, (vim.lsp.get_clients or vim.lsp.get_active_clients)())
  log("second")
end

local ok, err = pcall(run)
if not ok then
  out.error = tostring(err)
end
finish()
