"""Serving: the request service, the daemon, its HTTP server and watcher, the client."""
