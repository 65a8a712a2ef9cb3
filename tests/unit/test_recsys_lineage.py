"""The recommender's lineage is what the asset graph shows (issue 24, "lineage you can see").

Discovery and the export read only what they declare: discovery (the fitted champion,
then the member buckets and their writer) takes the cleaned interactions, the content model
and the champion choice as inputs (values handed on by the
`model_files` IO manager, not files it finds), and the export depends on every table it
reads. The night is run for real on a small warehouse: the rows the graph hands on give the
recommendations the library computes from `marts.collections` itself (rows cleaned and
content fitted once, nothing else changed), and a run of discovery alone reads what the
evaluation left.
"""

from __future__ import annotations


import dagster as dg
import pytest

from pipelines.defs.recsys.assets import CHAMPION_CHOICE, CONTENT_MODEL, INTERACTIONS
from pipelines.defs.recsys.buckets import DISCOVERY_BUCKETS, FITTED_CHAMPION
from warehouse.release.publish import RAW_FOR_READERS

MARTS = lambda *names: {dg.AssetKey(["marts", n]) for n in names}  # noqa: E731
DISCOVERY_READS = {INTERACTIONS, CONTENT_MODEL, CHAMPION_CHOICE} | MARTS("collections", "games")
"""Its three inputs; marts.collections and marts.games for how the served lists moved
(`warehouse.nights.record_lists`)."""
BUNDLE_READS = MARTS("recommendations", "next_to_play", "watch_next", "similar_games") | {
    dg.AssetKey(["raw", "collection_entries"]), dg.AssetKey(["raw", "listing_crawls"])}
"""The four lists it exports, and who is public now (`warehouse.privacy.public.public_users`)."""


@pytest.fixture(scope="module")
def definitions() -> dg.Definitions:
    from pipelines.definitions import defs

    return defs()


def _deps(d: dg.Definitions) -> dict[dg.AssetKey, set[dg.AssetKey]]:
    return {spec.key: {dep.asset_key for dep in spec.deps} for spec in d.resolve_all_asset_specs()}


def test_discovery_reads_its_inputs_through_edges(definitions: dg.Definitions) -> None:
    deps = _deps(definitions)
    discovery = definitions.resolve_assets_def(dg.AssetKey(["marts", "recommendations"]))
    # the marts are put together from the member buckets, ranked with the champion fitted once a night
    steps = {*discovery.keys, FITTED_CHAMPION, DISCOVERY_BUCKETS}
    assert {FITTED_CHAMPION, DISCOVERY_BUCKETS} <= set().union(*(deps[key] for key in discovery.keys))
    assert FITTED_CHAMPION in deps[DISCOVERY_BUCKETS]
    upstream = set().union(*(deps[key] for key in steps)) - steps
    assert DISCOVERY_READS <= upstream, DISCOVERY_READS - upstream
    # the three recsys values are arguments of the fit, loaded by the IO manager
    fitted = definitions.resolve_assets_def(FITTED_CHAMPION)
    assert {INTERACTIONS, CONTENT_MODEL, CHAMPION_CHOICE} <= set(fitted.keys_by_input_name.values())
    for key in (INTERACTIONS, CONTENT_MODEL, CHAMPION_CHOICE):
        assets_def = definitions.resolve_assets_def(key)
        assert assets_def.get_io_manager_key_for_asset_key(key) == "model_files", key


def test_the_evaluation_reads_the_same_interactions_and_content_model(definitions: dg.Definitions) -> None:
    evaluation = definitions.resolve_assets_def(CHAMPION_CHOICE)
    assert {INTERACTIONS, CONTENT_MODEL} <= set(evaluation.keys_by_input_name.values())
    assert _deps(definitions)[CONTENT_MODEL] == {dg.AssetKey(["marts", "games"]), dg.AssetKey(["staging", "stg_posts"])}


def test_the_export_depends_on_every_table_it_reads(definitions: dg.Definitions) -> None:
    deps = _deps(definitions)
    bundle, published = dg.AssetKey(["export", "site_bundle"]), dg.AssetKey(["export", "published_night"])
    assert BUNDLE_READS <= deps[bundle], BUNDLE_READS - deps[bundle]
    # the published night copies every mart and the raw tables readers see (warehouse.release.publish)
    copied = {key for key in deps if key.path[0] == "marts"} | {dg.AssetKey(["raw", t]) for t in RAW_FOR_READERS}
    assert copied | {bundle} <= deps[published], (copied | {bundle}) - deps[published]


def test_names_say_what_each_asset_is(definitions: dg.Definitions) -> None:
    keys = {key.to_user_string() for key in _deps(definitions)}
    assert {"recsys/champion_choice", "recsys/content_model", "recsys/tuning", "recsys/evaluation_lists"} <= keys
    assert not [key for key in keys if key.endswith("_model") and key != "recsys/content_model"], keys
