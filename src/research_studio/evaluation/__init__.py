"""Evaluating research runs: structural, behavioral and judge evaluators, citation accuracy, cases."""
