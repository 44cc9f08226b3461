"""What a change request asks for (router.route.imperative)."""

from __future__ import annotations

import pytest

from router.route import imperative


@pytest.mark.parametrize(
    ("task", "asked"),
    [
        ("Add a CITATION.cff so people can cite the engine.", "a CITATION.cff"),
        ("set up my Neovim config with lazy.nvim, telescope and treesitter", "my Neovim config"),
        ("add a LiveView page to our Phoenix app that streams updates", "a LiveView page"),
        ("Turn on LTO, a single codegen unit and symbol stripping", "LTO"),
        ("Add a Code of Conduct (Contributor Covenant 2.1) and link it", "a Code of Conduct"),
        (
            "In our Unreal Engine 5 project, add a C++ actor component that opens",
            "a C++ actor component",
        ),
        ("Can you please add retries to the bank client?", "retries"),
        ("I'd like to put the ConfigMap next to the cluster", "the ConfigMap"),
        ("Re-record the terminal demo on the front page.", "the terminal demo"),
        # a second sentence may hold the request
        (
            "The app needs search. Provision an OpenSearch domain in our VPC.",
            "an OpenSearch domain",
        ),
        # sizes and counts say how much, not what
        ("make 400px-wide thumbnails of everything in assets/photos", "thumbnails of everything"),
        ("Instrument the three services so we can follow a request", "the services"),
        ("Ship the v2 client with 24-row pages", "the client"),
        ("Fix it.", "it"),
        # a question how to make a thing asks for it; "to" leads to the destination
        ("How do I set up Velero backups?", "Velero backups"),
        ("We should add rate limiting to the proxy", "rate limiting"),
        ("Migrate to Postgres 16 next week", "Postgres"),
        # "off", like "onto", ends the thing moved; right after the verb it is a particle
        ("Move the parser tests off XCTestCase onto Swift Testing", "the parser tests"),
        ("Turn off the legacy exporter", "the legacy exporter"),
        ("How do I write down which one wins?", ""),
        ("How should we store and convert these times?", ""),
    ],
)
def test_a_request_asks_for_the_phrase_after_its_verb(task: str, asked: str) -> None:
    assert imperative.asked(task) == asked


@pytest.mark.parametrize(
    "task",
    [
        "Why does the engine only generate nav for MkDocs?",
        "Review my Terraform for shipping logs to S3: it creates an IAM user",
        "the Blender add-on installs without errors but its panel never shows up",
        "Let `headwater taxonomy vendor` accept an https URL",
        "```\nadd foo to bar\n```\nwhat does this snippet do?",
        "Make sure the retry loop gives up after five attempts",
    ],
)
def test_questions_reports_and_reviews_ask_for_nothing(task: str) -> None:
    assert imperative.asked(task) is None
