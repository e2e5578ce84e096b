"""Words out of names and paths, English stems, and the synonym layer read from its data file."""

from __future__ import annotations

from specbridge.search import Synonyms, default_synonyms, terms, words


def test_names_split_at_humps_underscores_dots_slashes_and_dashes() -> None:
    assert words("listPullRequests") == ["list", "pull", "requests"]
    assert words("admin.users_setAdmin") == ["admin", "users", "set", "admin"]
    assert words("/v1/customers/{customer_id}") == ["v", "1", "customers", "customer", "id"]
    assert words("repos/create-fork") == ["repos", "create", "fork"]


def test_function_words_and_request_filler_are_dropped() -> None:
    assert words("can you please show me the invoices of my shop") == ["show", "invoices", "shop"]


def test_english_stems_make_forms_of_one_word_meet() -> None:
    assert terms("subscriptions") == terms("subscription")
    assert terms("deleted") == terms("delete") == terms("deleting")
    assert terms("repositories") == terms("repository")


def test_a_word_of_the_query_brings_its_synonyms_at_a_lower_weight() -> None:
    synonyms = Synonyms.parse("delete, remove, kick\n")
    weights = synonyms.expand(terms("kick the user"))
    assert weights[terms("kick")[0]] == 1.0
    assert 0 < weights[terms("remove")[0]] < 1.0
    assert weights[terms("delete")[0]] == weights[terms("remove")[0]]


def test_a_phrase_counts_only_when_its_words_stand_together() -> None:
    synonyms = Synonyms.parse("refund, money back\n")
    assert terms("refund")[0] in synonyms.expand(terms("give them their money back"))
    assert terms("refund")[0] not in synonyms.expand(terms("back up the money"))


def test_the_shipped_synonyms_cover_the_words_people_and_apis_use_differently() -> None:
    synonyms = default_synonyms()
    for said, meant in [
        ("kick", "delete"),
        ("new", "create"),
        ("show", "list"),
        ("server", "guild"),
        ("money back", "refund"),
        ("paid out", "payout"),
        ("someone", "user"),
        ("member", "user"),
    ]:
        assert terms(meant)[0] in synonyms.expand(terms(said)), (said, meant)


def test_what_people_say_to_start_undo_or_count_things_finds_the_words_software_uses() -> None:
    synonyms = default_synonyms()
    for said, meant in [
        ("kick off", "dispatch"),
        ("roll back", "revert"),
        ("how many", "count"),
        ("log in", "authenticate"),
        ("unpause", "resume"),
    ]:
        assert terms(meant)[0] in synonyms.expand(terms(said)), (said, meant)


def test_comments_and_blank_lines_in_the_data_are_ignored() -> None:
    synonyms = Synonyms.parse("# a comment\n\nadd, create  # trailing\nlonely\n")
    assert len(synonyms.groups) == 1
