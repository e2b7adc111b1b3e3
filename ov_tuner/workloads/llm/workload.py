"""The LLM as a workload of the one driver (ov_tuner.engine.driver): the search over scheduler and plugin settings
under the users' load, then rounds side by side of the fastest settings within the budget against GenAI left alone,
then the walk to the most users the answer and each baseline serve within the budget (ov_tuner.workloads.llm.users),
then a speculative setting against its twin at the loads that decide it (ov_tuner.workloads.llm.by_load). What the
model says is read for the answer alone (and what it is checked against), once it is the answer.
Every trial is stored as it ends; a rerun of the same command resumes (the search skips what is stored, the rounds
and walks go on from what they stored); Ctrl-C stops after the trial under way.

Trials run in child processes (ov_tuner.workloads.llm.process), each setting's on a pipeline kept across its trials
(ov_tuner.workloads.llm.kept), as a server keeps its pipeline from one load to the next; every setting sends the same
stream of requests (drawn from the load's seed), never one its pipeline has seen, so no prefix cache answers from an
earlier trial.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path

from ov_tuner.engine.boundary import next_load
from ov_tuner.engine.budget import PhasePlan
from ov_tuner.engine.driver import Rounds, Steps
from ov_tuner.engine.rounds import RoundLimits
from ov_tuner.errors import BadInputError, ModelError
from ov_tuner.workloads.llm.agreement import (
    changes_precision,
    has_lossless,
    lossless_twin,
    precision_of,
    rounding_twin,
)
from ov_tuner.workloads.llm.answer import (
    contenders_of,
    held_back,
    llm_answer,
    round_table,
    searched_figures,
    speculative_setting,
    walk_windows,
)
from ov_tuner.workloads.llm.answer_record import BASELINES, LlmAnswer
from ov_tuner.workloads.llm.by_load import BY_LOAD_PASSES, deciding_loads, paired_in_rounds
from ov_tuner.workloads.llm.harness import harness_trial
from ov_tuner.workloads.llm.kept import KeptPipelines
from ov_tuner.workloads.llm.measured import LlmOutputs, LlmTrial
from ov_tuner.workloads.llm.objective import cannot_change
from ov_tuner.workloads.llm.process import outputs_in_process
from ov_tuner.workloads.llm.results_file import LlmStore
from ov_tuner.workloads.llm.schema import SCHEDULER_DEFAULT, LlmBudget, LlmJob, LlmLoad, LlmModel, LlmSetting, LlmSpace
from ov_tuner.workloads.llm.search import LlmSearch, along, leader, missed_budget, searched_axes
from ov_tuner.workloads.llm.users import MOST_RATE_FACTOR, MOST_USERS, WALK_WINDOWS, walk_rule


@dataclass(frozen=True)
class LlmSpec:
    """An `ov-tuner llm` run: the model, where its trials go, the device, the load, the budget, what is searched (and
    how: ov_tuner.workloads.llm.search),
    the passes side by side (at most; 0: none), how many of the search's best go to them besides the baselines, a
    draft model for speculative decoding (searched off and on), and
    whether to walk to the most load (users, or requests a second) the answer and the baselines serve within the
    budget (with a budget), up to `most_users` users, or `most_rate` requests a second (None: MOST_RATE_FACTOR times
    the rate given); `also_walk`: settings walked beside those (a table of what each serves)."""

    model: Path
    out: Path
    device: str = "CPU"
    load: LlmLoad = field(default_factory=LlmLoad)
    budget: LlmBudget = field(default_factory=LlmBudget)
    space: LlmSpace = field(default_factory=LlmSpace)
    passes: int = 4
    contenders: int = 2
    walk: bool = True
    most_users: int = MOST_USERS
    most_rate: float | None = None  # None: MOST_RATE_FACTOR times the rate given
    min_agreement: float = 0.9
    also_walk: tuple[LlmSetting, ...] = ()
    search: LlmSearch = LlmSearch.AXES
    draft: Path | None = None  # a draft model for speculative decoding, searched off and on


# Told of each trial as it is stored.
Seen = Callable[[LlmTrial], None]


@dataclass
class LlmWorkload:
    """One LLM job while it runs: the model each weights value runs, where trials go, who is told of each."""

    spec: LlmSpec
    job: LlmJob
    store: LlmStore
    folders: dict[str | None, LlmModel]
    seen: Seen
    pipelines: KeptPipelines

    def search(self) -> Steps:
        """The baselines, then the space axis by axis from the best so far, or every setting of it
        (ov_tuner.workloads.llm.search), each once (a resumed run skips what is stored). A budget no setting met is
        one line, its trials kept, unless the walks may go down to the load it is met at."""
        yield from self._measured(BASELINES)
        space, budget = self.spec.space, self.spec.budget
        if self.spec.search is LlmSearch.GRID:
            yield from self._measured(space.settings())
        elif (best := leader(searched_figures(self.store.llm_trials(), budget), budget)) is not None:
            yield from self._measured([space.pinned(best.setting)])  # the best baseline, as the space holds it
            for name, values in searched_axes(space):
                best = leader(searched_figures(self.store.llm_trials(), budget), budget) or best
                yield from self._measured(along(space, best.setting, name, values))
        searched = searched_figures(self.store.llm_trials(), self.spec.budget)
        if not any(f.meets for f in searched) and not (searched and self._walking()):
            raise BadInputError(missed_budget(self.spec.budget, searched))

    def planned(self) -> tuple[PhasePlan, PhasePlan, PhasePlan]:
        """The trials each phase has left, from what is stored, for the driver's plan and time budget: the settings
        the search may still try; the rounds' visits (the contenders at most, each pass; the first passes over all
        of them decide anything); the walks' windows (WALK_WINDOWS each for the answer, the fastest and the
        baselines, a window apiece the fewest that say anything), with the reads and passes by load beside them."""
        trials, spec = self.store.llm_trials(), self.spec
        searched = sum(t.searched for t in trials)
        axes = (len(spec.space.settings()) if spec.search is LlmSearch.GRID else
                1 + sum(len(values) for _, values in searched_axes(spec.space)))
        contenders = spec.contenders + 1 + len(BASELINES) if spec.passes >= 2 else 0
        in_rounds = sum(t.in_rounds for t in trials)
        walked = 2 + len(BASELINES) if self._walking() else 0
        in_walks = sum(t.walked_at is not None for t in trials)
        by_load = 2 * 3 * min(spec.passes, BY_LOAD_PASSES)  # a pair at up to three loads
        return (PhasePlan("search", max(len(BASELINES) + axes - searched, 0), 0),
                PhasePlan("rounds", max(contenders * spec.passes - in_rounds, 0),
                          max(contenders * min(3, spec.passes) - in_rounds, 0)),
                PhasePlan("walks", max(walked * WALK_WINDOWS + by_load - in_walks, 0), max(walked - in_walks, 0)))

    def _confirmed(self) -> Steps:
        """What the model says at the answer, on the held-apart prompts, read once it is the answer: with GenAI's
        scheduler default's (the reference, read first) and, for a lossless knob, its twin without it and that
        twin chunked otherwise (the floor rounding gives). Where that holds it back, the answer moves on and the
        next is read, until one holds or none is left. A setting never deployed is never read: reading each
        contender before the rounds took 121 of the demo step's 503 s (9 reads; the answer's alone take 4)."""
        while (answer := self.answer().answer) is not None and (unread := self._unread([SCHEDULER_DEFAULT,
                                                                                        answer.setting])):
            for setting in unread:
                outputs = self._outputs(setting)
                self.store.add_llm_outputs(outputs)
                yield outputs

    def _unread(self, settings: Sequence[LlmSetting]) -> list[LlmSetting]:
        """Each of `settings`, and for one with a lossless knob its twin and rounding twin, not read yet."""
        checked = [s for setting in settings
                   for s in (setting, *((lossless_twin(setting), rounding_twin(setting)) if has_lossless(setting)
                                        else ()))]
        read = {o.setting for o in self.store.llm_outputs()}
        return [s for s in dict.fromkeys(checked) if s not in read]

    def _walking(self) -> bool:
        return self.spec.walk and self.spec.budget.bounded

    def _measured(self, settings: Sequence[LlmSetting]) -> Steps:
        """Each of `settings` the search has not measured (a resumed run skips what is stored)."""
        tried = {t.setting for t in self.store.llm_trials() if t.searched}
        for setting in settings:
            if setting not in tried:
                tried.add(setting)
                yield self.measure(setting)

    def _outputs(self, setting: LlmSetting) -> LlmOutputs:
        """What the model says at `setting`, with the logits' checks where it computes in another precision than GenAI's
        scheduler default: read once for each precision (settings alike in it differ in rounding alone) and shared
        by the settings that compute in it, the first time with the default's own beside them, the most exact
        continuation computed once for both. A setting that changes no precision computes as the default does, so
        its logits are the default's: none are read for it (in the demo, the f32 continuation and each setting's
        check took about 20 s apiece)."""
        stored = self.store.llm_outputs()
        alike = next((o for o in stored if o.next_token_shares and precision_of(o.setting) == precision_of(setting)),
                     None)
        checked = changes_precision(setting) and alike is None
        default = next((o for o in stored if o.setting == SCHEDULER_DEFAULT and o.error is None), None)
        with_default = checked and default is not None and not default.next_token_shares
        spec = self.spec
        outputs, beside = outputs_in_process(self.folders[setting.weights], spec.device, setting, spec.load,
                                             self.folders[None] if checked else None, with_default)
        if default is not None and beside is not None:
            self.store.add_llm_outputs(replace(default, first_step_cosines=beside.first_step_cosines,
                                               next_token_shares=beside.next_token_shares))
        if alike is None or not changes_precision(setting):
            return outputs
        return replace(outputs, first_step_cosines=alike.first_step_cosines,
                       next_token_shares=alike.next_token_shares)

    def rounds(self) -> AbstractContextManager[Rounds | None]:
        """The contenders (the search's fastest within the budget that say enough alike, and the baselines) side by
        side, going on from the passes stored; their figure is output tokens a second."""
        searched = searched_figures(self.store.llm_trials(), self.spec.budget)
        if self.spec.passes < 2 or not any(f.meets for f in searched):
            return nullcontext(None)
        held = held_back(self.store.llm_outputs(), self.job.min_agreement)
        contenders = contenders_of(searched, self.spec.contenders, held)
        met = {f.setting for f in searched if f.meets}  # may lead the passes (the answer judges each by its rounds)

        def visit(position: int, number: int) -> float | None:
            trial = self.measure(contenders[position], number)
            return trial.tokens_per_s if trial.ok else None

        limits = RoundLimits(min(3, self.spec.passes), self.spec.passes)
        return nullcontext(Rounds(visit, [s in met for s in contenders], limits,
                                  round_table(self.store.llm_trials(), contenders)))

    def walks(self) -> Steps:
        """After the rounds: what the model says at the answer, the walks to the most load the answer and the
        baselines serve (then what it says at the answer again, where a walk moved it), a speculative setting against
        its twin at the loads that decide it, then the harness alone at the load the answer serves."""
        yield from self._confirmed()
        yield from self._walks()
        yield from self._confirmed()  # a walk may have found another contender serving more
        yield from self._by_load()
        yield from self._harness()

    def _walks(self) -> Steps:
        """The walks to the most load (users, or requests a second) the answer, the fastest, each baseline (and the
        settings the spec also walks) serve within the budget (with a budget, where asked for), alternately: one
        trial of each in turn while its walk goes on, so the host's drift meets each alike; a resumed run goes on
        from the loads stored. Where nothing met the budget at the load given, the one that missed it least and the
        baselines walk down to what each serves, and the one that serves most is the answer (what it says read
        then); where none serves even the least load, that is one line, the trials kept."""
        answer = self.answer()
        chosen = answer.answer or answer.closest
        if not self._walking() or chosen is None:
            return
        closed, start = self.spec.load.closed, self.spec.load.amount
        most = float(self.spec.most_users) if closed else self.spec.most_rate or start * MOST_RATE_FACTOR
        rule = walk_rule(start, most, closed)
        ran = {f.setting for f in answer.searched}  # a setting whose search trial failed is not walked
        leaders = [chosen.setting, *([answer.fastest.setting] if answer.fastest else [])]
        walking = list(dict.fromkeys([*leaders, *BASELINES, *(s for s in self.spec.also_walk if s in ran)]))
        while walking:
            for setting in list(walking):
                trials = self.store.llm_trials()  # read once a step: the setting's windows and the answer's
                windows = walk_windows(trials, setting, self.spec.load, self.spec.budget)
                at = next_load(windows, rule)
                if at is None or (setting not in leaders and setting not in self.spec.also_walk and cannot_change(
                        windows, walk_windows(trials, chosen.setting, self.spec.load, self.spec.budget), closed)):
                    walking.remove(setting)
                else:
                    yield self.measure(setting, at=at)
        if self.answer().answer is None:
            raise BadInputError(missed_budget(self.spec.budget, list(answer.searched), walked=True))

    def _by_load(self) -> Steps:
        """The speculative setting that decides (ov_tuner.workloads.llm.by_load: the answer where it proposes
        tokens, else the search's fastest that does) against its twin proposing nothing, in passes side by side at
        one user, the load given (unless both went to the rounds, which measured them there) and the most the
        answer's walk served (where it lies apart from it, and not above what the setting's own walk may serve),
        the order within each pair alternating from pass to pass; a resumed run measures what is not stored."""
        answer = self.answer()
        setting, passes = speculative_setting(answer), min(self.spec.passes, BY_LOAD_PASSES)
        if setting is None or passes < 2:
            return
        walk = next((w for w in answer.walks if answer.answer is not None and w.setting == answer.answer.setting),
                    None)
        own = next((w.found for w in answer.walks if w.setting == setting), None)
        loads = deciding_loads(self.spec.load.amount, self.spec.load.closed,
                               walk.served if walk is not None and walk.served > 0 else None, own)
        pair, trials = (setting, setting.without_speculation()), self.store.llm_trials()
        if paired_in_rounds(trials, setting):  # the rounds measured the pair side by side at the load given
            loads.remove(self.spec.load.amount)
        done = {(t.setting, t.walked_at, t.pass_number) for t in trials if t.by_load}
        for number in range(passes):
            for at in loads:
                for side in pair if number % 2 == 0 else pair[::-1]:
                    if (side, at, number) not in done:
                        yield self.measure(side, number, at)

    def _harness(self) -> Steps:
        """Once the walks are done: the answer's setting at the load its walk served, with the model made trivial
        (ov_tuner.workloads.llm.harness), so the answer can say whether ov-tuner's harness set the figure."""
        answer = self.answer()
        setting = None if answer.answer is None else answer.answer.setting
        walk = next((w for w in answer.walks if w.setting == setting), None)
        if self.store.llm_harness() or setting is None or walk is None or walk.served <= 0:
            return
        users, rate = self._walked(walk.served)
        trial = replace(harness_trial(self.spec.device, setting, self._load_at(walk.served)), users=users, rate=rate)
        self.store.add_llm_trial(trial, harness=True)
        yield trial

    def _walked(self, at: float) -> tuple[int | None, float | None]:
        """How a trial at `at` is stored: as users (a closed loop) or as requests a second."""
        return (int(at), None) if self.spec.load.closed else (None, at)

    def _load_at(self, at: float) -> LlmLoad:
        """The job's load at `at` users (a closed loop) or requests a second."""
        closed = self.spec.load.closed
        return replace(self.spec.load, users=int(at) if closed else 0, rate=self.spec.load.rate if closed else at)

    def measure(self, setting: LlmSetting, number: int | None = None, at: float | None = None) -> LlmTrial:
        """One trial at the job's load, or (a walk's) at `at` users or requests a second, stored as it ends."""
        spec = self.spec
        users, rate = (None, None) if at is None else self._walked(at)
        load = spec.load if at is None else self._load_at(at)
        trial = replace(self.pipelines.trial(self.folders[setting.weights], spec.device, setting, load),
                        pass_number=number, users=users, rate=rate)
        if setting == SCHEDULER_DEFAULT and trial.error and not self.store.llm_trials():
            raise ModelError(f"{spec.device} cannot run {self.job.model.path} with GenAI: {trial.error}")
        self.store.add_llm_trial(trial)
        self.seen(trial)
        return trial

    def answer(self) -> LlmAnswer:
        """The answer from everything stored."""
        stored = self.store.stored_llm()
        assert stored is not None  # the job was claimed before the workload began
        return llm_answer(stored)
