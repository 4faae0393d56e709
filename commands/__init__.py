"""The command line's commands, one module each, loaded when the command runs."""
