"""A route: anchors, purposes, pointers, fusion by meaning, assembly, rendering and why-not."""
