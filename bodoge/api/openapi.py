"""The API's OpenAPI 3.1 document, built from the export's JSON Schemas: one definition of an item.

Why not a second set of models: the site already imports the bundle's lines, whose items are
defined once in `warehouse.release.schemas.FILE_SCHEMAS` (and validated on every line). The
API answers with the same items, so its document takes them from there: OpenAPI 3.1 speaks
JSON Schema draft 2020-12, the export's dialect, so the definitions go in unchanged. A field
added to an export item appears in the API's document with it.
"""

from __future__ import annotations

import copy
from typing import Any

from warehouse.release.schemas import FILE_SCHEMAS, SCHEMA_VERSION

BOOL = {"type": "boolean", "default": False}


def _item(file_name: str) -> dict[str, Any]:
    return copy.deepcopy(FILE_SCHEMAS[file_name]["properties"]["items"]["items"])


def _list(key: str, item: str, doc: str) -> dict[str, Any]:
    return {
        "type": "object", "required": [key, "night_id", "items"], "description": doc,
        "properties": {key: {"type": "string"}, "night_id": {"type": "string"},
                       "items": {"type": "array", "items": {"$ref": f"#/components/schemas/{item}"}}},
    }


def _json(schema: str, description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}}}


ERRORS = {
    "401": _json("Error", "A token is set and the request lacks it (Authorization: Bearer …)."),
    "404": _json("Error", "Unknown or private (the same answer), or an unknown game."),
    "422": _json("Error", "A malformed parameter or body; the message names the field."),
    "503": _json("Error", "No night is loaded yet (or the night has no model to fold in with)."),
}

QUERY = {
    "n": {"name": "n", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10}},
    "players": {"name": "players", "in": "query", "schema": {"type": "integer", "minimum": 1},
                "description": "Playable with N players (marts.playable_with)."},
    "max_minutes": {"name": "max_minutes", "in": "query", "schema": {"type": "integer", "minimum": 1},
                    "description": "Fits in M minutes (marts.fits_in)."},
    "user_id": {"name": "user_id", "in": "path", "required": True, "schema": {"type": "string"}},
    "game_id": {"name": "game_id", "in": "path", "required": True, "schema": {"type": "string"}},
}


def _member_list(summary: str, filters: bool) -> dict[str, Any]:
    params = [QUERY["user_id"], QUERY["n"], *([QUERY["players"], QUERY["max_minutes"]] if filters else [])]
    body = {"required": True, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CollectionBody"}}}}
    ok = _json("MemberList", "The list, best first.")
    return {
        "get": {"summary": f"{summary}: the night's stored list", "parameters": params,
                "responses": {"200": ok, **ERRORS}},
        "post": {"summary": f"{summary} for the member's collection now (fold-in, the night's champion)",
                 "parameters": params, "requestBody": body,
                 "responses": {"200": ok, "413": _json("Error", "The body or the collection is too large."), **ERRORS}},
    }


def document() -> dict[str, Any]:
    """The OpenAPI 3.1 document served at /openapi.json."""
    entry = {"type": "object", "required": ["game_id"], "additionalProperties": False, "properties": {
        "game_id": {"type": "string", "minLength": 1}, "have": BOOL, "played": BOOL, "favorite": BOOL,
        "watching": BOOL, "rating": {"type": ["number", "null"], "minimum": 1, "maximum": 5}}}
    return {
        "openapi": "3.1.0",
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "info": {"title": "bodoge API", "version": SCHEMA_VERSION,
                 "description": "The published night's lists for the site, and fresh lists for a member's "
                                "collection now (docs/api.md). Items are the export's items (schema "
                                f"version {SCHEMA_VERSION})."},
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {
                "MemberItem": _item("recommendations.jsonl"),
                "SimilarItem": _item("similar_games.jsonl"),
                "MemberList": _list("user_id", "MemberItem", "A member's list."),
                "SimilarList": _list("game_id", "SimilarItem", "A game's similar games."),
                "CollectionEntry": entry,
                "CollectionBody": {"type": "object", "required": ["collection"], "additionalProperties": False,
                                   "properties": {"collection": {"type": "array", "items": {
                                       "$ref": "#/components/schemas/CollectionEntry"}}}},
                "GameNightBody": {"type": "object", "required": ["members"], "additionalProperties": False,
                                  "properties": {"members": {"type": "array", "minItems": 2, "items": {"type": "string"}},
                                                 "cafe": {"type": ["string", "null"]}, "anywhere": BOOL,
                                                 "n": {"type": "integer", "minimum": 1, "maximum": 100}}},
                "Night": {"type": "object", "required": ["night_id", "published_at", "champion"], "properties": {
                    "night_id": {"type": "string"}, "published_at": {"type": ["string", "null"]},
                    "champion": {"type": ["string", "null"]}}},
                "Error": {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}},
            },
        },
        "security": [{"bearer": []}],
        "paths": {
            "/healthz": {"get": {"summary": "200 while the process runs", "security": [],
                                 "responses": {"200": {"description": "alive"}}}},
            "/readyz": {"get": {"summary": "200 with night_id once a night is loaded", "security": [],
                                "responses": {"200": {"description": "ready"}, "503": ERRORS["503"]}}},
            "/v1/night": {"get": {"summary": "The night being served", "responses": {
                "200": _json("Night", "Its id, publication time and champion."), **ERRORS}}},
            "/v1/members/{user_id}/discovery": _member_list("Discovery", True),
            "/v1/members/{user_id}/watch-list": _member_list("From the watch list (興味あり)", False),
            "/v1/members/{user_id}/play-next": _member_list("Play next (積みゲー)", False),
            "/v1/games/{game_id}/similar": {"get": {"summary": "Similar games (the night's)",
                                                    "parameters": [QUERY["game_id"], QUERY["n"]],
                                                    "responses": {"200": _json("SimilarList", "Most similar first."),
                                                                  **ERRORS}}},
            "/v1/game-night": {"post": {"summary": "Game night for a group (as `bodoge recommend --group`)",
                                        "requestBody": {"required": True, "content": {"application/json": {
                                            "schema": {"$ref": "#/components/schemas/GameNightBody"}}}},
                                        "responses": {"200": {"description": "The group's list, best first."},
                                                      **ERRORS}}},
        },
    }
