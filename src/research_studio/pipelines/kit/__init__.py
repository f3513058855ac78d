"""Shared pipeline parts: node kit, input/output contract, fan-in, stop rules, plan review, report metadata."""
