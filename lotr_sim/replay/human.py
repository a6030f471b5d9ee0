"""A person at the table: ``lotr-sim play --human SEAT`` plays one seat from the terminal
against the other seats' players.

The human is one more player of the step machine (``lotr_sim.games.players``): registered
as ``human`` for the session, its seat is held in Python like the search player's, so the
game is the same step machine, traced like any other (the header's ``seat_policies`` says
``human``). At each of its decisions it shows the position (the game's picture as text,
``lotr_sim.replay.Walker.text``; with ``--board`` also the replay page so far), what the
other seats did since, and the legal actions numbered from 1 in plain words (the game's
``Walker.describe``), the tuned player's choice marked: Enter alone takes it.

Undo and saving both rest on one fact: a game is reproducible from its seed, its index and
the human's decisions (the other players are deterministic, chance comes from the game's
stream). A save file holds the game's settings and those decisions; undo drops the last one
and plays the game again from the start up to it; ``--resume`` does the same with a save."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from lotr_sim.errors import LotrSimError

SAVE_VERSION = 1
HELP = """Type the number of an action and Enter. Enter alone takes the suggested action (marked <-,
the tuned player's choice). u: undo your last decision (the game is played again from the
start up to it). q: save the game and quit (go on later with lotr-sim play --resume FILE).
Ctrl-D saves and quits too. ?: this help."""


class _Undo(Exception):
    """The human asked to take back the last decision."""


class Saved(LotrSimError):
    """The human saved and quit: not an error; the CLI prints the message and exits 0."""


def human_seat(game: Any, comp: Any, who: str) -> str:
    """The seat name ``who`` names: a seat (``p3``) or a side with one seat (``good``)."""
    seats = game.seat_names(comp)
    if who in seats:
        return who
    if who in game.sides:
        mine = [s for i, s in enumerate(seats) if game.sides[game.seat_side(comp, i)] == who]
        if len(mine) == 1:
            return mine[0]
        raise LotrSimError(f"--human {who}: side {who} has seats {', '.join(mine)}; name one of them")
    raise LotrSimError(f"--human {who}: {game.name} has no seat or side '{who}' "
                       f"(seats: {', '.join(seats)}; sides: {', '.join(game.sides)})")


def load_save(path: str | Path) -> dict:
    """A save file written by ``HumanGame.save``; one error line when it is not one."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LotrSimError(f"save file {p} not found") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise LotrSimError(f"save file {p} cannot be read ({type(e).__name__}): not a lotr-sim save") from None
    if not isinstance(data, dict) or data.get("lotr_sim_save") != SAVE_VERSION:
        raise LotrSimError(f"{p} is not a lotr-sim save file (version {SAVE_VERSION})")
    for k in ("game", "seed", "index", "human", "policies", "sets", "decisions"):
        if k not in data:
            raise LotrSimError(f"save file {p} has no '{k}'")
    return data


class HumanGame:
    """One game with a human seat. ``ask(prompt)`` reads a line (raises EOFError at the end
    of input), ``say(text)`` prints."""

    def __init__(self, game: Any, cfg: Any, comp: Any, policies: Mapping[str, str], seed: int, index: int,
                 seat: str, save_path: Path, board: Path | None = None, decisions: Sequence[int] = (),
                 sets: Sequence[str] = (), config: str | None = None,
                 ask: Callable[[str], str] = input, say: Callable[[str], None] = print):
        self.game, self.cfg, self.comp = game, cfg, comp
        self.seat = seat
        self.seat_index = list(game.seat_names(comp)).index(seat)
        self.policies = dict(policies)
        self.policies[seat] = "human"
        self.seed, self.index = int(seed), int(index)
        self.save_path, self.board = Path(save_path), board
        self.decisions = [int(d) for d in decisions]
        self.sets, self.config = list(sets), config
        self.ask, self.say = ask, say
        self.cursor = 0
        self.shown = 0           # events already told

    # -- the player the step machine calls ---------------------------------------------------
    def _factory(self, game: Any, seed: int) -> Any:
        self.cursor = 0
        self.shown = 0
        return _Player(self)

    def play(self) -> tuple[dict, list[dict]]:
        """Play to the end; returns the result row and the trace's events. Raises ``Saved``
        after saving when the human quits."""
        from lotr_sim.games.players import PLAYERS, register_player
        register_player("human", self._factory, "a person at the terminal (lotr-sim play --human)",
                        {"base": "tuned"})
        try:
            while True:
                try:
                    return self.game.play(self.comp, self.policies, self.seed, self.index)
                except _Undo:
                    continue
        finally:
            PLAYERS.pop("human", None)

    def save(self) -> Path:
        """Write the save file: the game's settings and the human's decisions."""
        data = {"lotr_sim_save": SAVE_VERSION, "game": self.game.name, "seed": self.seed, "index": self.index,
                "human": self.seat, "policies": {k: v for k, v in self.policies.items() if k != self.seat},
                "sets": self.sets, "config": self.config, "decisions": self.decisions}
        try:
            self.save_path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        except OSError as e:
            raise LotrSimError(f"cannot write the save file {self.save_path}: {e.strerror or e} "
                               f"(your decisions: {self.decisions})") from None
        return self.save_path

    def _quit(self) -> None:
        p = self.save()
        raise Saved(f"saved {len(self.decisions)} decision(s) to {p}; go on with: lotr-sim play --resume {p}")

    # -- one decision ------------------------------------------------------------------------
    def choose(self, state: Any) -> int:
        g, comp = self.game, state.compiled
        n = state.legal_actions().shape[0]
        if self.cursor < len(self.decisions):
            i = self.decisions[self.cursor]
            if not 0 <= i < n:
                raise LotrSimError(f"the save's decision {self.cursor + 1} ({i + 1}) is not one of the "
                                   f"{n} actions of this game: the save is of another game or version")
            self.cursor += 1
            return i
        state.use_heuristic(g.heuristic_rows(comp, [self._default(s) for s in g.seat_names(comp)]))
        suggest = state.heuristic_choice()
        kind = state.decision_kind()
        walker, events = self._position(comp, state)
        rows = state.legal_actions()
        self._tell(walker, events, kind)
        lines = [f"  {k + 1:>3}. {walker.describe(kind, rows[k]) or list(rows[k])}"
                 + ("   <- suggested" if k == suggest else "") for k in range(n)]
        self.say("\n".join(lines))
        while True:
            try:
                raw = self.ask(f"Your choice (1-{n}; Enter = {suggest + 1}; ? help, u undo, q save and quit): ")
            except (EOFError, KeyboardInterrupt):
                self.say("")
                self._quit()
            x = raw.strip().lower()
            if x == "":
                choice = suggest
            elif x in ("?", "h", "help"):
                self.say(HELP)
                continue
            elif x == "q":
                self._quit()
            elif x == "u":
                if not self.decisions:
                    self.say("Nothing to undo: this is your first decision.")
                    continue
                self.decisions.pop()
                self.say(f"Undone: back to your decision {len(self.decisions) + 1} (the game is played again up to it).")
                raise _Undo()
            elif x.isdigit() and 1 <= int(x) <= n:
                choice = int(x) - 1
            else:
                self.say(f"'{raw.strip()}' is not a choice: type a number from 1 to {n}, Enter for "
                         f"{suggest + 1}, ? for help.")
                continue
            self.decisions.append(choice)
            self.cursor += 1
            self.say(f"You: {walker.describe(kind, rows[choice]) or choice + 1}")
            return choice

    def _default(self, seat: str) -> str:
        p = self.policies.get(seat, "tuned")
        return "tuned" if p == "human" else p

    def _position(self, comp: Any, state: Any) -> tuple[Any, list[dict]]:
        from lotr_sim.replay import board_layout, picture_module
        header = self.game.trace_header(comp, self.policies, self.seed, self.index)
        events = [header] + self.game._decode(comp, state, self.index)
        walker = picture_module(self.game).Walker(self.game, self.cfg, comp, board_layout(self.game.name))
        if hasattr(walker, "start"):
            walker.start(events)
        for e in events[1:]:
            walker.apply(e)
            h = walker.heading(e)
            if h:
                walker.head = h
        if self.board is not None:
            self._write_board(events)
        return walker, events

    def _tell(self, walker: Any, events: list[dict], kind: str) -> None:
        news = [walker.line(e) for e in events[max(1, self.shown):] if e.get("event") not in ("snapshot",)]
        self.shown = len(events)
        if news:
            self.say("\n".join(news[-25:]))
        self.say(f"\n{walker.head}\n{walker.text()}\n")
        self.say(f"Your decision ({self.seat}, {kind}):")

    def _write_board(self, events: list[dict]) -> None:
        from lotr_sim.replay import board_layout, picture_module
        from lotr_sim.replay.page import write_page
        w = picture_module(self.game).Walker(self.game, self.cfg, self.comp, board_layout(self.game.name))
        steps = w.steps(events)
        if steps:
            if str(self.board).endswith(".svg"):
                self._write_svg(w, steps[-1])
            else:
                write_page(Path(self.board), self.game, events[0], w.svg(), steps)

    def _write_svg(self, w: Any, step: Any) -> None:
        """The current board alone as an SVG file (the page's spots filled in)."""
        import re
        svg = w.svg()
        for sid, (fill, a, b, tip) in step.spots.items():
            svg = re.sub(rf'(id="s-{re.escape(sid)}"[^>]*?)fill="[^"]*"', rf'\1fill="{fill}"', svg, count=1)
            for key, val in (("a", a), ("b", b)):
                svg = svg.replace(f'id="{key}-{sid}"></text>', f'id="{key}-{sid}">{_x(val)}</text>', 1)
        for mid, xy in step.marks.items():
            if xy is not None:
                svg = svg.replace(f'<g id="m-{mid}" visibility="hidden">',
                                  f'<g id="m-{mid}" transform="translate({xy[0]},{xy[1]})">', 1)
        try:
            Path(self.board).write_text(svg, encoding="utf-8")
        except OSError as e:
            raise LotrSimError(f"cannot write the board {self.board}: {e.strerror or e}") from None


def _x(s: str) -> str:
    from html import escape
    return escape(str(s))


class _Player:
    """The step machine's view of the human (``games.players.play_state``)."""

    decisions = 0

    def __init__(self, session: HumanGame):
        self.session = session

    def choose(self, state: Any) -> int:
        return self.session.choose(state)
