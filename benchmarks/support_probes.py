"""The support check against wrong statements made from the page itself.

    python -m benchmarks.support_probes [-v]

Every sentence of six short pages written for this probe (invented facts, no data set) is
checked against its whole page as written, and mutated the way a careless or adversarial writer
errs with the page in front of it: a figure changed (+7), "not" inserted, a name swapped for
another name of the same page, a direction flipped ("rose" for "fell", "behind" for "ahead of"),
a year swapped for another year of the page. It prints how many sentences pass as written and
how many wrong ones are accepted, per kind (`-v` lists the accepted ones). The same page is the
hardest case: every word of a swapped name is on it.
"""

from __future__ import annotations

import re
import sys

from research_studio.grounding.support import best_support, sentences_of

PAGES = [
    """The city council approved the new budget on March 3, 2022. It allocates $45 million to road repairs and $12 million to public libraries. Mayor Linda Chen said the plan would create 300 jobs. Council member David Park voted against it, arguing that property taxes would rise by 4%. The previous budget, passed in 2021, had cut library funding by 8%.""",
    """Maria Santos won the 2019 Boston Marathon in 2 hours 21 minutes. She finished 40 seconds ahead of Kenyan runner Joyce Kiplagat. Santos had placed third in 2017 and second in 2018. Her coach, Peter Alvarez, said she trained at altitude in Colorado for six months. Attendance at the race rose to 30,000 runners, up from 27,000 the year before.""",
    """The Hubble Space Telescope was launched in April 1990 aboard the shuttle Discovery. A flaw in its main mirror blurred its first images. Astronauts repaired the mirror during a servicing mission in December 1993. Since then the telescope has made more than 1.5 million observations. NASA expects it to keep operating until at least 2030.""",
    """Global coffee prices fell 15% in the second half of 2023 as Brazil's harvest recovered. Vietnam, the second-largest producer, exported 1.7 million tonnes in that period. Analysts at Rabobank said prices could increase again if drought returns. Smaller producers in Ethiopia reported lower incomes. Consumption in China grew by 12% over the same period.""",
    """The novel was written by Chinua Achebe and published in 1958. It follows Okonkwo, a wrestler and leader in an Igbo village. The book has sold more than 20 million copies and has been translated into 57 languages. Achebe later said he wrote it in response to European novels about Africa. He died in 2013 in Boston at the age of 82.""",
    """Researchers at Stanford University tested the vaccine on 240 volunteers. Two doses produced antibodies in 92% of participants. Side effects were mild and lasted less than two days. The team, led by Dr. Rachel Kim, did not observe any serious reactions. A larger trial with 3,000 people will begin in June.""",
]
# fmt: off
FLIPS = [("approved","rejected"),("rise","fall"),("rose","fell"),("fell","rose"),("increase","decrease"),("grew","shrank"),("lower","higher"),("won","lost"),("against","for"),("cut","raised"),("ahead of","behind"),("mild","severe"),("less than","more than"),("larger","smaller")]
# fmt: on
NUM = re.compile(r"\b\d+(?:\.\d+)?\b")
NAME = re.compile(r"(?<=[a-z,] )[A-Z][a-z]{2,}\b")
YEAR = re.compile(r"\b(19|20)\d\d\b")
AUX = re.compile(r"\b(is|are|was|were|has|have|had|will|did|could)\b")


def variants(sentence: str, page: str) -> list[tuple[str, str]]:
    out = []
    m = NUM.search(sentence)
    if m:
        out.append(
            ("figure", sentence[: m.start()] + str(int(float(m.group())) + 7) + sentence[m.end() :])
        )
    a = AUX.search(sentence)
    if a:
        out.append(("not", sentence[: a.end()] + " not" + sentence[a.end() :]))
    names = [n for n in dict.fromkeys(NAME.findall(page))]
    n = NAME.search(sentence)
    if n:
        other = next((x for x in names if x not in sentence), None)
        if other:
            out.append(("name", sentence.replace(n.group(), other, 1)))
    for old, new in FLIPS:
        if re.search(rf"\b{old}\b", sentence):
            out.append(("flip", re.sub(rf"\b{old}\b", new, sentence, count=1)))
            break
    y = YEAR.search(sentence)
    if y:
        years = [x.group() for x in YEAR.finditer(page) if x.group() != y.group()]
        if years:
            out.append(("year", sentence.replace(y.group(), years[0], 1)))
    return out


def main() -> None:
    ok_right = total_right = 0
    wrong_ok: dict[str, int] = {}
    wrong_total: dict[str, int] = {}
    for page in PAGES:
        for s in sentences_of(page):
            total_right += 1
            ok_right += best_support(s, page).ok
            for kind, v in variants(s, page):
                wrong_total[kind] = wrong_total.get(kind, 0) + 1
                if best_support(v, page).ok:
                    wrong_ok[kind] = wrong_ok.get(kind, 0) + 1
                    if "-v" in sys.argv:
                        print("ACCEPTED", kind, "|", v)
    print(
        f"as written: {ok_right}/{total_right}; wrong accepted: "
        + ", ".join(f"{k} {wrong_ok.get(k, 0)}/{t}" for k, t in wrong_total.items())
    )


if __name__ == "__main__":
    main()
