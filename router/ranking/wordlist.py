"""The word lists a task is read with: function words (never a route term), path syntax (a
path's tokens that say where a file lives) and the actions of a change request."""

from __future__ import annotations

# Words that carry the shape of a request, not its subject: pronouns, auxiliaries, wh-words,
# request and hedge words, contraction stubs ("don't" normalizes to "don t"), quantifiers and
# prepositions beyond seed 1's stopwords. None of them names what a document is about.
FUNCTION_WORDS = frozenset(
    """
    i me my mine myself we us our ours ourselves you your yours yourself he him his she her
    they them their theirs it its itself one ones someone anyone everyone somebody anybody
    what which who whom whose when where why how whether if then than so because since while
    whereas though although however but nor not no yes yeah yep nope ok okay
    do does did doing done don doesn didn have has having had haven hasn hadn
    am was were been being isn aren wasn weren won wouldn shouldn couldn can cannot cant
    could would should shall will may might must ll ve re
    please pls plz thanks thank thx hi hello hey hiya guys folks btw fyi imo asap tl dr
    want wants wanted wanting need needs needed needing let lets like likes liked
    just only really actually maybe perhaps probably basically simply kind sort quite
    also too very much many more most less least lot lots bit
    some any all every each other others another such same own both either neither
    there here now today currently already still yet again ever never always sometimes often
    even else instead rather
    thing things something anything everything nothing stuff way ways
    know think see look looking seem seems seemed try trying tried tell help sure mean means
    going gonna wanna gotta got get gets getting goes went
    about above after before over under between through during without within up down out
    off around across against along toward towards onto upon via per etc eg ie vs
    right wrong quick anyway somewhere
    using used
    """.split()
)
# Tokens of path syntax: source roots, build folders and file extensions. In a path they
# say where a file lives, not what the task is about ("src/api/payments.py" is about payments).
PATH_SYNTAX = frozenset(
    """
    src lib libs app apps pkg pkgs cmd internal packages package crates crate modules vendor
    dist build out bin target test tests spec specs index main init mod doc docs github
    py pyi ts tsx js jsx mjs cjs rs go rb java kt kts scala md mdc mdx rst json jsonl yaml yml
    toml txt sh bash zsh sql css scss less html htm vue svelte c h cc cpp hpp cs php swift m
    lock cfg ini conf xml gradle proto tf env log csv
    """.split()
)
# The actions of a change request. They rank (a document titled "Add X" is about adding),
# but no route speaks because of them: every task asks to add, fix or change something.
ACTION_WORDS = frozenset(
    """
    add adds added adding fix fixes fixed fixing change changes changed changing make makes
    made making create creates created creating update updates updated updating remove
    removes removed removing delete deletes deleted write writes wrote written writing set
    sets setting run runs ran running put puts show shows showed shown give gives keep keeps
    stop stops start starts starting turn turns move moves moved check checks review
    reviews work works worked find finds found new old time times
    """.split()
)


def is_function_word(token: str) -> bool:
    """Return whether a normalized token is a function word (never a route term)."""
    return token in FUNCTION_WORDS
