"""Shared pipeline parts: node kit, graph wiring, input/output contract, fan-in, stop rules, plan review, report metadata."""
