"""Serving: the request service, the daemon, its HTTP server and watcher, the client
and the launcher that starts and stops daemons for it."""
