"""Options and settings: their policy, configuration files, the user's approvals."""
