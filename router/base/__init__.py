"""The base layer: typed errors and the places kroute keeps its files."""
