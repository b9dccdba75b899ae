"""conda plugin for envhook: a thin shim that calls the envhook binary."""
