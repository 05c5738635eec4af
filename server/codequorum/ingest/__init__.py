"""Where versions come from: sample-set files, the store, importing, the workspace."""
