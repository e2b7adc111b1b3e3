"""The results file's LLM records: what was tuned (the model, device, load and budget; one per file) and every trial,
of the search and of the rounds side by side, stored as soon as it ends."""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from typing import Any

from ov_tuner.errors import IncompatibleResultsError, Input
from ov_tuner.store.connection import Connection
from ov_tuner.store.rows import array, blob, now
from ov_tuner.store.tables import OwnTables
from ov_tuner.workloads.llm.measured import LlmOutputs, LlmTrial, Roofline
from ov_tuner.workloads.llm.schema import LlmBudget, LlmJob, LlmLoad, LlmModel, LlmSetting

# The LLM's tables in its results files, and what brings a file's up from an older version of them (numbered as the
# results schema's were while every workload's tables were the store's).
LLM_TABLES = OwnTables("llm", 21, """
CREATE TABLE IF NOT EXISTS llm (id INTEGER PRIMARY KEY, spec TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS llm_trials (
    id INTEGER PRIMARY KEY, round INTEGER, users INTEGER, rate REAL, setting TEXT NOT NULL, error TEXT,
    ttft_ms BLOB NOT NULL, tpot_ms BLOB NOT NULL, output_tokens INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL,
    wall_s REAL NOT NULL, kv_cache_bytes INTEGER NOT NULL, max_cache_usage REAL NOT NULL,
    peak_rss_bytes INTEGER NOT NULL, first_request_ms REAL NOT NULL, load_s REAL NOT NULL, created_at TEXT NOT NULL,
    window_s REAL NOT NULL DEFAULT 0, window_tokens INTEGER NOT NULL DEFAULT 0,
    window_requests INTEGER NOT NULL DEFAULT 0, harness INTEGER NOT NULL DEFAULT 0,
    window_steps INTEGER NOT NULL DEFAULT 0, window_prompt_tokens INTEGER NOT NULL DEFAULT 0,
    window_context_tokens INTEGER NOT NULL DEFAULT 0, cached_tokens INTEGER NOT NULL DEFAULT 0,
    window_cached_tokens INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS llm_roofline (id INTEGER PRIMARY KEY, figures TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS llm_outputs (
    id INTEGER PRIMARY KEY, setting TEXT NOT NULL UNIQUE, tokens TEXT NOT NULL, error TEXT, created_at TEXT NOT NULL,
    first_step_cosines TEXT NOT NULL DEFAULT '[]', next_token_shares TEXT NOT NULL DEFAULT '[]',
    asked TEXT NOT NULL DEFAULT '', reply TEXT NOT NULL DEFAULT ''
);
""", upgrades={
    9: ("ALTER TABLE llm_outputs ADD COLUMN first_step_cosines TEXT NOT NULL DEFAULT '[]'",),  # v10: the logits' cosine
    10: tuple(  # v11: what a trial's server produced in its counted window (0: measured before there was one)
        f"ALTER TABLE llm_trials ADD COLUMN {column} NOT NULL DEFAULT 0"
        for column in ("window_s REAL", "window_tokens INTEGER", "window_requests INTEGER")),
    13: ("ALTER TABLE llm_trials ADD COLUMN harness INTEGER NOT NULL DEFAULT 0",),  # v14: the harness's own trials
    14: tuple(  # v15: a setting's next tokens along the most exact continuation, and its reply to one prompt
        f"ALTER TABLE llm_outputs ADD COLUMN {column}"
        for column in ("next_token_shares TEXT NOT NULL DEFAULT '[]'", "asked TEXT NOT NULL DEFAULT ''",
                       "reply TEXT NOT NULL DEFAULT ''")),
    15: tuple(  # v16: what a trial's steps read (the schema makes the host's roofline table)
        f"ALTER TABLE llm_trials ADD COLUMN {column} INTEGER NOT NULL DEFAULT 0"
        for column in ("window_steps", "window_prompt_tokens", "window_context_tokens")),
    16: (),  # v17: a trial's output is counted from its window's opening until its last timed request ended
    17: (),  # v18: a setting's trials run on one pipeline kept from the first (ov_tuner.workloads.llm.kept)
    18: (),  # v19: a kept pipeline's trial goes on from the requests its last left in flight
    19: tuple(  # v20: a trial's prompt tokens the prefix cache answered
        f"ALTER TABLE llm_trials ADD COLUMN {column} INTEGER NOT NULL DEFAULT 0"
        for column in ("cached_tokens", "window_cached_tokens")),
})


class LlmRecords(Connection):
    """Writes and reads of an LLM's records."""

    OWN_TABLES = (LLM_TABLES,)

    def claim_llm(self, job: LlmJob) -> None:
        """Record `job`, or refuse when the file holds another (another model, device, load or budget)."""
        stored = self.llm_job()
        if stored is None:
            with self._writing():
                self._db.execute("INSERT INTO llm (spec, created_at) VALUES (?, ?)", (json.dumps(asdict(job)), now()))
        elif stored not in (job, _as_before_v16(job)):
            raise IncompatibleResultsError(
                f"{self.path} holds the trials of another LLM job (its model, device, load, budget or GenAI version "
                f"differ); tune into a new {Input.RESULTS} file")

    def llm_job(self) -> LlmJob | None:
        row = self._db.execute("SELECT spec FROM llm ORDER BY id LIMIT 1").fetchone()
        return None if row is None else _job(json.loads(row[0]))

    def add_llm_trial(self, trial: LlmTrial, harness: bool = False) -> None:
        """Store `trial`; `harness`: the load harness's own, with the model made trivial (kept apart from the
        model's trials: llm_harness)."""
        with self._writing():
            self._db.execute(
                "INSERT INTO llm_trials (round, users, rate, setting, error, ttft_ms, tpot_ms, output_tokens, "
                "prompt_tokens, wall_s, kv_cache_bytes, max_cache_usage, peak_rss_bytes, first_request_ms, load_s, "
                "window_s, window_tokens, window_requests, window_steps, window_prompt_tokens, window_context_tokens, "
                "cached_tokens, window_cached_tokens, harness, created_at) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (trial.pass_number, trial.users, trial.rate, json.dumps(asdict(trial.setting)), trial.error,
                 blob(trial.ttft_ms), blob(trial.tpot_ms), trial.output_tokens, trial.prompt_tokens, trial.wall_s,
                 trial.kv_cache_bytes, trial.max_cache_usage, trial.peak_rss_bytes, trial.first_request_ms,
                 trial.load_s, trial.window_s, trial.window_tokens, trial.window_requests,
                 trial.window_steps, trial.window_prompt_tokens, trial.window_context_tokens, trial.cached_tokens,
                 trial.window_cached_tokens, int(harness), now()))

    def llm_trials(self) -> list[LlmTrial]:
        """The model's trials, in the order they ran."""
        return self._trials(harness=False)

    def llm_harness(self) -> list[LlmTrial]:
        """The load harness's own trials, with the model made trivial."""
        return self._trials(harness=True)

    def _trials(self, harness: bool) -> list[LlmTrial]:
        return [LlmTrial(LlmSetting(**json.loads(r["setting"])), pass_number=r["round"], users=r["users"],
                         rate=r["rate"], error=r["error"],
                         ttft_ms=array(r["ttft_ms"]), tpot_ms=array(r["tpot_ms"]), output_tokens=r["output_tokens"],
                         prompt_tokens=r["prompt_tokens"], wall_s=r["wall_s"], kv_cache_bytes=r["kv_cache_bytes"],
                         max_cache_usage=r["max_cache_usage"], peak_rss_bytes=r["peak_rss_bytes"],
                         first_request_ms=r["first_request_ms"], load_s=r["load_s"], window_s=r["window_s"],
                         window_tokens=r["window_tokens"], window_requests=r["window_requests"],
                         window_steps=r["window_steps"], window_prompt_tokens=r["window_prompt_tokens"],
                         window_context_tokens=r["window_context_tokens"], cached_tokens=r["cached_tokens"],
                         window_cached_tokens=r["window_cached_tokens"])
                for r in self._db.execute("SELECT * FROM llm_trials WHERE harness = ? ORDER BY id", (int(harness),))]

    def add_llm_roofline(self, roofline: Roofline) -> None:
        """Store what bounds decode on this host (once a job: a resumed run keeps the first)."""
        with self._writing():
            self._db.execute("INSERT INTO llm_roofline (figures, created_at) VALUES (?, ?)",
                             (json.dumps(asdict(roofline)), now()))

    def llm_roofline(self) -> Roofline | None:
        row = self._db.execute("SELECT figures FROM llm_roofline ORDER BY id LIMIT 1").fetchone()
        return None if row is None else Roofline.from_stored(json.loads(row[0]))

    def add_llm_outputs(self, outputs: LlmOutputs) -> None:
        with self._writing():
            self._db.execute("INSERT OR REPLACE INTO llm_outputs (setting, tokens, error, first_step_cosines, "
                             "next_token_shares, asked, reply, created_at) VALUES (?,?,?,?,?,?,?,?)",
                             (json.dumps(asdict(outputs.setting)), json.dumps(outputs.tokens), outputs.error,
                              json.dumps(outputs.first_step_cosines), json.dumps(outputs.next_token_shares),
                              outputs.asked, outputs.reply, now()))

    def llm_outputs(self) -> list[LlmOutputs]:
        return [LlmOutputs(LlmSetting(**json.loads(r["setting"])), tuple(tuple(s) for s in json.loads(r["tokens"])),
                           r["error"], first_step_cosines=tuple(json.loads(r["first_step_cosines"])),
                           next_token_shares=tuple(json.loads(r["next_token_shares"])), asked=r["asked"],
                           reply=r["reply"])
                for r in self._db.execute("SELECT * FROM llm_outputs ORDER BY id")]


def _as_before_v16(job: LlmJob) -> LlmJob:
    """`job` as a file written before v16 holds it: its model without the heads and feed-forward width (the same
    job, resumed)."""
    return replace(job, model=replace(job.model, heads=0, kv_heads=0, feed_forward=0))


def _job(data: dict[str, Any]) -> LlmJob:
    return LlmJob(LlmModel.from_stored(data["model"]), data["device"], LlmLoad.from_stored(data["load"]),
                  LlmBudget(**data["budget"]), data["genai_version"], data["min_agreement"])
