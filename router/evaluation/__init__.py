"""Evaluation: fixture cases, labelled intent sets, judged sets, suites and the BM25 baseline."""
