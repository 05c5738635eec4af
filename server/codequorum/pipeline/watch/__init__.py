"""The watch: noticing a function that arrives in one edit (an accepted completion, a chat or
agent edit, a paste), as opposed to one typed a character at a time.

``edits`` turns a document change into the regions it inserted; ``arrivals`` says which
functions those regions wrote; ``budget`` bounds how often the watch may ask for versions.
Everything here is protocol-free and pure, so the language server and the typing replay of
``bench/bench_watch_replay.py`` run the same rules.
"""
