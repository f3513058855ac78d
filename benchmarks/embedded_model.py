"""The embedded model's real work, cold: load time, tokens per second and structured output.

Each thread count runs in a fresh process (what a user's `research-studio run` pays): the model
is loaded, writes free text, then answers the product's own structured calls through the same
code path the pipelines use (`ModelCaller.structured`), whose replies pydantic validates.
Run: `research-studio bench --embedded-model` or `python -m benchmarks.embedded_model`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from benchmarks.process_tree import load

PROBE = r"""
import asyncio, json, resource, time
from langchain_core.messages import HumanMessage, SystemMessage
from research_studio.core.config import Configuration
from research_studio.llm.models import create_chat_model
from research_studio.llm.structured import ModelCaller
from research_studio.pipelines.standard.schemas import GapAssessment, ResearchPlan, Understanding

threads = {threads}
config = Configuration(local_model_threads=threads)
model = create_chat_model("local:smollm2", config)
started = time.monotonic()
server = model._model()
loaded = time.monotonic() - started
cpu = time.process_time()
reply = server.handle_chat_completions({{
    "messages": [{{"role": "user", "content": "Write a long paragraph about urban heat islands."}}],
    "max_tokens": 200, "temperature": 0.0,
}})
free = {{
    "tokens": reply["usage"]["completion_tokens"],
    "tokens_per_s": reply["timings"]["predicted_per_second"],
    "prompt_tokens_per_s": reply["timings"]["prompt_per_second"],
    "cpu_s": time.process_time() - cpu,
}}
question = "How do cool roofs and trees reduce urban heat?"
calls = [
    (ResearchPlan, f"Plan the research of this question. Question: {{question}}"),
    (Understanding, f"Say what this question asks. Question: {{question}}"),
    (GapAssessment, f"Which parts of this question are not answered yet? Question: {{question}}"),
]
async def structured():
    caller = ModelCaller(model, spec="local:smollm2", node="bench", tier="fast")
    valid = 0
    started = time.monotonic()
    for schema, prompt in calls:
        try:
            await caller.structured(schema, [SystemMessage(content="Reply in JSON."), HumanMessage(content=prompt)])
            valid += 1
        except Exception:
            pass
    return {{"calls": len(calls), "valid": valid, "wall_s": time.monotonic() - started,
             "completion_tokens": sum(c["completion_tokens"] or 0 for c in caller.calls)}}
result = {{"threads": threads, "load_s": loaded, "free_text": free, "structured": asyncio.run(structured()),
          "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}
print("RESULT " + json.dumps(result))
"""


def measure(threads: int) -> dict[str, Any]:
    """One cold process: load, free text and structured calls with `threads` threads."""
    before = load()
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(threads=threads)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if line is None:
        return {"threads": threads, "error": (done.stderr or done.stdout)[-500:]}
    return {**json.loads(line[len("RESULT ") :]), "load_before": before, "load_after": load()}


def run_embedded_model(thread_counts: tuple[int, ...] = (1, 2)) -> dict[str, Any]:
    """Every thread count, one after the other, with the binding that ran them."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        binding = f"xllamacpp {version('xllamacpp')}"
    except PackageNotFoundError:
        return {"skipped": "the local extra is not installed"}
    return {"binding": binding, "runs": [measure(threads) for threads in thread_counts]}


if __name__ == "__main__":
    print(json.dumps(run_embedded_model(), indent=2))
