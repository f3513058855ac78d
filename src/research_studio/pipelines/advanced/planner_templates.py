"""Research trees by query type (person, concept, technical, comparison), built by code.

Each tree has primary (must answer), secondary (should answer) and tertiary (nice to have)
questions with confidence weights; every query names the subject. Other query types are
planned by the model (planner.py).
"""

from __future__ import annotations

from research_studio.pipelines.advanced.nodes.planner import apply_query_rules, numbered_queries
from research_studio.pipelines.advanced.state import ResearchPlan, TreeQuestion

# (bucket, question, section, queries, target sources, confidence weight)
Template = tuple[str, str, str, tuple[str, ...], tuple[str, ...], float]

TEMPLATES: dict[str, tuple[Template, ...]] = {
    "person": (
        ("primary", "Who is {a}?", "Overview", ('"{a}" {ctx}', '"{a}" biography'), ("official", "news"), 0.25),
        ("primary", "What is {a}'s background and education?", "Background", ('"{a}" education', '"{a}" {ctx} background'), ("official", "reference"), 0.2),
        ("primary", "What is {a}'s current role and work?", "Career", ('"{a}" {ctx} role', '"{a}" work experience'), ("official", "news"), 0.2),
        ("secondary", "What has {a} published, built or achieved?", "Achievements", ('"{a}" publications', '"{a}" projects awards'), ("academic", "news"), 0.15),
        ("secondary", "What has {a} done recently?", "Recent activity", ('"{a}" {year}', '"{a}" news'), ("news",), 0.1),
        ("tertiary", "How do others describe {a}?", "Recent activity", ('"{a}" interview', '"{a}" profile'), ("news",), 0.05),
    ),
    "concept": (
        ("primary", "What is {a}?", "Definition", ("{a} definition", "{a} explained"), ("reference", "academic"), 0.3),
        ("primary", "How does {a} work?", "How it works", ("how {a} works", "{a} mechanism"), ("academic", "reference"), 0.25),
        ("primary", "What is {a} used for?", "Applications", ("{a} applications", "{a} uses examples"), ("analysis", "news"), 0.2),
        ("secondary", "What are the limits and risks of {a}?", "Challenges", ("{a} limitations", "{a} risks"), ("academic", "analysis"), 0.1),
        ("secondary", "Where does {a} come from?", "History", ("{a} history", "{a} discovery origin"), ("reference",), 0.1),
        ("tertiary", "Where is {a} heading?", "Outlook", ("{a} future", "{a} latest research"), ("news",), 0.05),
    ),
    "technical": (
        ("primary", "How does {a} work?", "How it works", ("how {a} works", "{a} principle"), ("academic", "reference"), 0.3),
        ("primary", "What are the parts of {a}?", "Components", ("{a} components", "{a} architecture"), ("academic", "reference"), 0.25),
        ("primary", "What happens step by step in {a}?", "Process", ("{a} process steps", "{a} explained"), ("reference",), 0.2),
        ("secondary", "How well does {a} perform, and where does it fail?", "Limitations", ("{a} performance", "{a} limitations"), ("academic", "analysis"), 0.1),
        ("secondary", "What are the alternatives to {a}?", "Alternatives", ("{a} alternatives", "{a} compared"), ("analysis",), 0.1),
        ("tertiary", "What is new in {a}?", "Outlook", ("{a} latest developments", "{a} {year}"), ("news",), 0.05),
    ),
    "comparison": (
        ("primary", "What is {a}?", "{a}", ("{a} overview", "{a} features"), ("reference",), 0.2),
        ("primary", "What is {b}?", "{b}", ("{b} overview", "{b} features"), ("reference",), 0.2),
        ("primary", "How do {a} and {b} differ?", "Comparison", ("{a} vs {b}", "{a} {b} differences"), ("analysis",), 0.3),
        ("secondary", "When is {a} or {b} the better choice?", "Use cases", ("{a} vs {b} use cases", "when to use {a} or {b}"), ("analysis",), 0.15),
        ("secondary", "What evidence compares {a} and {b}?", "Evidence", ("{a} {b} benchmark", "{a} {b} comparison study"), ("academic",), 0.1),
        ("tertiary", "How are {a} and {b} changing?", "Outlook", ("{a} {b} future", "{a} {b} {year}"), ("news",), 0.05),
    ),
}  # fmt: skip


def _fill(text: str, values: dict[str, str]) -> str:
    return " ".join(text.format(**values).split())


def template_plan(
    query_type: str, anchors: list[str], context: list[str], *, recent: bool, year: int
) -> ResearchPlan | None:
    """The type's research tree (None for types without a template)."""
    if query_type not in TEMPLATES or not anchors:
        return None
    a = anchors[0]
    b = anchors[1] if len(anchors) > 1 else a
    values = {"a": a, "b": b, "ctx": context[0] if context else "", "year": str(year)}
    subject = f"{a} vs {b}" if query_type == "comparison" else a
    buckets: dict[str, list[TreeQuestion]] = {"primary": [], "secondary": [], "tertiary": []}
    for bucket, question, section, queries, targets, weight in TEMPLATES[query_type]:
        # Each question's queries must name its own subject (a comparison's side, or both).
        own = b if "{b}" in question and "{a}" not in question else a
        buckets[bucket].append(
            TreeQuestion(
                question=_fill(question, values),
                queries=[
                    apply_query_rules(_fill(q, values), own, recent=recent, year=year)
                    for q in queries
                ],
                target_sources=list(targets),
                priority=weight,
                section=_fill(section, values),
            )
        )
    outline = list(dict.fromkeys(node["section"] for nodes in buckets.values() for node in nodes))
    flat = numbered_queries([*buckets["primary"], *buckets["secondary"], *buckets["tertiary"]])
    return ResearchPlan(
        topic=f"Research on {subject}",
        outline=outline,
        primary=buckets["primary"],
        secondary=buckets["secondary"],
        tertiary=buckets["tertiary"],
        queries=flat,
        search_strategy=f"{query_type} template",
    )
