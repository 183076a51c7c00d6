"""One llama.cpp model per process: chat template, token loop, logprobs, prefix reuse.

Why our own token loop instead of ``Llama.create_completion``: completion logprobs
there need ``logits_all=True``, which keeps n_ctx x vocab floats (8192 x 151936 =
5 GB for Qwen) and computes the output layer for every prompt token. We only need
the log-probability of each *sampled* token, which the last-token logits give
after each step; summed, it is the sequence score the search's p-UCB prior uses.

Why one engine per model file with a lock: llama.cpp contexts are not re-entrant,
and a second copy of the weights would double RAM for nothing. (Inline suggestions
get their own ``instance``, see ``get_engine``: a suggestion must not wait minutes
for a run's call.) Calls are served one at a time; n samples of one prompt run back to back, so every sample after the
first reads only the few tokens that differ (llama-cpp-python keeps the longest
common token prefix of consecutive evaluations). ``PrefixStateCache`` extends that
to prompts that alternate between a few long prefixes.

This module touches a few private ``Llama`` attributes (``input_ids``, ``n_tokens``,
``_requires_eval``, ``_model.vocab``) of the pinned llama-cpp-python 0.3.36.
"""

from __future__ import annotations

import atexit
import codecs
import ctypes
import functools
import os
import random
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .prefix_cache import PrefixStateCache, common_prefix

DEFAULT_N_CTX = 8192
PREFILL_CHUNK = 256  # prompt tokens read between deadline checks
RESTORE_MIN_GAIN = 32  # restore a saved state only when it saves reading this many tokens

# Qwen2.5's template, used only if a GGUF carries none.
CHATML_TEMPLATE = (
    "{% for message in messages %}{% if loop.first and message['role'] != 'system' %}"
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{% endif %}"
    "<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


class ContextOverflow(ValueError):
    """The prompt does not fit the model's context window."""


class EngineClosed(RuntimeError):
    """The engine was freed (``close_engines``); ``get_engine`` loads a new one."""


class DeadlineExceeded(TimeoutError):
    """The caller's deadline passed during generation (the lock is released at once)."""


@dataclass
class GenerationStats:
    """What one call cost; ``logprob`` is the sum over the returned tokens."""

    tokens_in: int = 0
    tokens_out: int = 0
    cached_tokens: int = 0  # prompt tokens not re-read (live KV or a restored state)
    restored_tokens: int = 0  # of which came from PrefixStateCache
    prompt_seconds: float = 0.0
    generation_seconds: float = 0.0
    save_seconds: float = 0.0  # copying the state into PrefixStateCache
    logprob: float = 0.0
    finish_reason: str = "stop"  # stop | length | repetition
    token_logprobs: list[float] = field(default_factory=list, repr=False)

    def as_metadata(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("token_logprobs")
        return data


def import_llama_cpp():
    """Import llama_cpp (an optional dependency) with OpenMP workers that sleep when idle.

    With the default spin-waiting, the second OpenMP thread burns a core between
    tokens while Python computes logprobs, and on a busy 2-core machine (a kernel,
    the server, a trial run) generation collapsed from ~7 to <1 token/s in our
    measurements. libgomp reads OMP_WAIT_POLICY once, when the library loads, so
    we set it only around the import: kernels started later do not inherit it.
    """
    if "llama_cpp" in sys.modules:
        return sys.modules["llama_cpp"]
    previous = os.environ.get("OMP_WAIT_POLICY")
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import llama_cpp
    finally:
        if previous is None:
            os.environ.pop("OMP_WAIT_POLICY", None)
    return llama_cpp


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS
        return os.cpu_count() or 1


class LlamaEngine:
    """A loaded GGUF with a lock; ``stream`` yields text pieces then GenerationStats."""

    def __init__(
        self,
        model_path: str | Path,
        *,
        n_ctx: int = DEFAULT_N_CTX,
        n_threads: int | None = None,
        state_cache_bytes: int = 1 << 30,
    ):
        self._llama_cpp = llama_cpp = import_llama_cpp()
        self.model_path = str(model_path)
        self.lock = threading.Lock()
        self.closed = False  # set under the lock by close(): a caller that got us before must not run
        threads = n_threads or cpu_count()
        self.llm = llama_cpp.Llama(
            model_path=self.model_path,
            n_ctx=n_ctx,
            n_threads=threads,
            n_threads_batch=threads,
            verbose=False,
        )
        self.n_ctx = self.llm.n_ctx()
        self.n_vocab = self.llm.n_vocab()
        self.state_cache = PrefixStateCache(state_cache_bytes) if state_cache_bytes else None
        template = self.llm.metadata.get("tokenizer.chat_template") or CHATML_TEMPLATE
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        model = self.llm._model
        eos, bos = self.llm.token_eos(), self.llm.token_bos()
        self._formatter = Jinja2ChatFormatter(
            template=template,
            eos_token=model.token_get_text(eos) if eos != -1 else "",
            bos_token=model.token_get_text(bos) if bos != -1 else "",
        )

    def close(self, wait: float) -> bool:
        """Free the model now; False when a call still holds it after ``wait`` seconds (it is
        left loaded then: freeing a context under a running call would crash the process)."""
        if not self.lock.acquire(timeout=wait):
            return False
        try:
            self.closed = True
            self.llm.close()
            if self.state_cache is not None:
                self.state_cache.clear()
        finally:
            self.lock.release()
        return True

    def _check_open(self) -> None:
        if self.closed:
            raise EngineClosed("the local model was closed (its server or process is stopping)")

    # -- prompt ------------------------------------------------------------

    def format(self, messages: list[dict[str, str]]) -> str:
        """The chat prompt as the GGUF's own template renders it (Qwen: ChatML)."""
        return self._formatter(messages=messages).prompt

    def tokenize(self, prompt: str) -> list[int]:
        # The template already wrote any BOS; special=True reads <|im_start|> as one token.
        return self.llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)

    # -- generation ----------------------------------------------------------

    def _token_logprob(self, token: int) -> float:
        ptr = self._llama_cpp.llama_get_logits_ith(self.llm.ctx, -1)
        logits = np.ctypeslib.as_array(ptr, shape=(self.n_vocab,))
        peak = float(logits.max())
        return float(logits[token]) - peak - float(np.log(np.exp(logits - peak).sum()))

    def _restore(self, tokens: list[int]) -> int:
        """Load the saved state that shares most with tokens, if it beats the live KV."""
        if self.state_cache is None:
            return 0
        live = common_prefix(self.llm.input_ids[: self.llm.n_tokens], tokens)
        entry, shared = self.state_cache.best(tokens)
        if entry is None or shared < live + RESTORE_MIN_GAIN:
            return 0
        buf = (ctypes.c_uint8 * len(entry.state)).from_buffer_copy(entry.state)
        if self._llama_cpp.llama_state_set_data(self.llm.ctx, buf, len(entry.state)) != len(entry.state):
            self.llm.reset()
            return 0
        n = len(entry.tokens)
        self.llm.input_ids[:n] = entry.tokens
        self.llm.n_tokens = n
        self.llm._requires_eval = True
        return shared

    def _prefill(self, tokens: list[int], deadline: float | None) -> int:
        """Read all but the last prompt token, reusing the KV prefix; returns tokens reused.

        Done here rather than inside ``Llama.generate`` so the deadline is checked
        between chunks: reading a long prompt takes tens of seconds on a small CPU.
        """
        llm = self.llm
        keep = min(common_prefix(llm.input_ids[: llm.n_tokens], tokens), len(tokens) - 1)
        if keep < llm.n_tokens:
            llm._ctx.kv_cache_seq_rm(-1, keep, -1)
            llm.n_tokens = keep
        todo = tokens[keep : len(tokens) - 1]
        for i in range(0, len(todo), PREFILL_CHUNK):
            if deadline is not None and time.monotonic() > deadline:
                raise DeadlineExceeded("reading the prompt passed its deadline")
            llm.eval(todo[i : i + PREFILL_CHUNK])
        return keep

    def _save(self, prompt_len: int) -> None:
        if self.state_cache is None or self.llm.n_tokens == 0:
            return
        lc = self._llama_cpp
        size = lc.llama_state_get_size(self.llm.ctx)
        buf = (ctypes.c_uint8 * size)()
        written = lc.llama_state_get_data(self.llm.ctx, buf, size)
        self.state_cache.put(
            # string_at copies in C; bytes(buf[:n]) would build a list of n Python ints
            self.llm.input_ids[: self.llm.n_tokens].copy(),
            prompt_len,
            ctypes.string_at(buf, written),
        )

    def stream(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int = 1024,
        temperature: float = 0.2,
        top_p: float = 0.95,
        top_k: int = 40,
        seed: int | None = None,
        stop: list[str] | None = None,
        deadline: float | None = None,
        json_schema: str | None = None,
    ) -> Iterator[str | GenerationStats]:
        """Yield decoded text pieces as they are safe to show, then one GenerationStats.

        ``json_schema`` (a JSON Schema as text): every sampled token keeps the answer a prefix of
        a JSON document of that schema (llama.cpp's grammar sampler), so the answer parses."""
        self._check_open()
        grammar = json_grammar(json_schema) if json_schema else None
        tokens = self.tokenize(self.format(messages))
        room = self.n_ctx - len(tokens)
        if room < 16:
            raise ContextOverflow(
                f"The prompt has {len(tokens)} tokens; the local model's context holds "
                f"{self.n_ctx}. Shorten the prompt or raise n_ctx."
            )
        max_tokens = min(max_tokens, room)
        stops = [s for s in (stop or []) if s]
        stats = GenerationStats(tokens_in=len(tokens))
        with self.lock:
            self._check_open()
            llm = self.llm
            start = time.perf_counter()
            stats.restored_tokens = self._restore(tokens)
            stats.cached_tokens = self._prefill(tokens, deadline)
            stats.restored_tokens = min(stats.restored_tokens, stats.cached_tokens)
            llm.set_seed(seed if seed is not None else random.randrange(2**31))
            decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
            text, shown, cut_by_stop = "", 0, False
            vocab = llm._model.vocab
            first = None
            # generate() finds all but the last prompt token in the KV cache: it reads one
            # token, samples, and from then on feeds back each sampled token.
            generator = llm.generate(
                tokens, top_k=top_k, top_p=top_p, min_p=0.05, temp=temperature, repeat_penalty=1.0, grammar=grammar
            )
            try:
                for token in generator:
                    if first is None:
                        first = time.perf_counter()
                        stats.prompt_seconds = first - start
                    if self._llama_cpp.llama_vocab_is_eog(vocab, token):
                        break
                    logprob = self._token_logprob(token)
                    text += decoder.decode(llm.detokenize([token]))
                    cut = min((text.find(s) for s in stops if s in text), default=-1)
                    if cut >= 0:
                        text, cut_by_stop = text[:cut], True
                        break
                    stats.token_logprobs.append(logprob)
                    hold = _stop_prefix_len(text, stops)
                    if len(text) - hold > shown:
                        yield text[shown : len(text) - hold]
                        shown = len(text) - hold
                    if len(stats.token_logprobs) >= max_tokens:
                        stats.finish_reason = "length"
                        break
                    if text.endswith("\n") and repeating_tail(text):
                        stats.finish_reason = "repetition"
                        break
                    if deadline is not None and time.monotonic() > deadline:
                        raise DeadlineExceeded("generation passed its deadline")
            finally:
                generator.close()
                end = time.perf_counter()
                stats.generation_seconds = end - (first or end)
                try:
                    self._save(len(tokens))
                except Exception:  # a failed save only costs a later cache miss
                    if self.state_cache is not None:
                        self.state_cache.clear()
                stats.save_seconds = time.perf_counter() - end
        if not cut_by_stop:
            text += decoder.decode(b"", final=True)
        if len(text) > shown:
            yield text[shown:]
        stats.tokens_out = len(stats.token_logprobs)
        stats.logprob = float(sum(stats.token_logprobs))
        yield stats


@functools.lru_cache(maxsize=8)
def json_grammar(json_schema: str) -> Any:
    """The GBNF grammar of a JSON Schema (``LlamaGrammar``), built once per schema text."""
    import_llama_cpp()
    from llama_cpp.llama_grammar import LlamaGrammar

    return LlamaGrammar.from_json_schema(json_schema, verbose=False)


# A small model at a low temperature can fall into writing one line (or a few) over and over
# until max_tokens, which costs minutes a call on a CPU and yields nothing usable. A block of
# 1 line repeated 5 times in a row, or of 2-3 lines 4 times, or of 4-6 lines 3 times (blank lines
# included, so a repeated comment + call + blank line is caught), with some substance (not "]"
# or blank lines alone), ends the answer there.
_REPEATS = {1: 5, 2: 4, 3: 4, 4: 3, 5: 3, 6: 3}
_REPEAT_MIN_CHARS = 12
_REPEAT_WINDOW = max(period * times for period, times in _REPEATS.items())


def repeating_tail(text: str) -> bool:
    """Whether the complete lines of ``text`` end with a block of lines repeated back to back."""
    lines = text.rsplit("\n", _REPEAT_WINDOW + 1)[1:-1]  # the last complete lines
    for period, times in _REPEATS.items():
        if len(lines) < period * times:
            continue
        block = lines[-period:]
        if sum(len(line.strip()) for line in block) < _REPEAT_MIN_CHARS:
            continue
        if all(lines[len(lines) - period * (k + 1) : len(lines) - period * k] == block for k in range(times)):
            return True
    return False


def _stop_prefix_len(text: str, stops: list[str]) -> int:
    """Length of the longest tail of text that could start a stop string (held back)."""
    best = 0
    for s in stops:
        for n in range(min(len(s) - 1, len(text)), best, -1):
            if text.endswith(s[:n]):
                best = n
                break
    return best


_ENGINES: dict[tuple[str, str], LlamaEngine] = {}
_LOADING: dict[tuple[str, str], threading.Lock] = {}
_ENGINES_LOCK = threading.Lock()


def get_engine(model_path: str | Path, *, instance: str = "", **kwargs: Any) -> LlamaEngine:
    """The process-wide engine for a model file and ``instance`` (loaded on first use;
    later kwargs ignored).

    ``instance`` names a separate copy with its own context and lock: inline
    suggestions use one so they never queue behind a run's long prompt, even on
    the same file (the weights are mmapped, so the copy costs its KV cache and
    buffers, not a second read of the file). Loading takes seconds, so it holds
    only this key's lock: another engine's callers are not held up meanwhile.
    """
    key = (str(Path(model_path).resolve()), instance)
    with _ENGINES_LOCK:
        engine = _ENGINES.get(key)
        if engine is not None:
            return engine
        loading = _LOADING.setdefault(key, threading.Lock())
    with loading:
        engine = _ENGINES.get(key)
        if engine is None:
            engine = LlamaEngine(key[0], **kwargs)
            with _ENGINES_LOCK:
                _ENGINES[key] = engine
        return engine


CLOSE_WAIT_S = 2.0  # how long closing waits for a call in progress before leaving its engine


def close_engines(wait: float = CLOSE_WAIT_S) -> None:
    """Free every loaded model while llama_cpp is still whole (server stop, interpreter exit).

    Left to ``Llama.__del__``, the free runs during the interpreter's module teardown when
    a long-lived object (a server's extension) holds this module: llama_cpp's functions are
    None by then, and the TypeError's traceback ends every shutdown. A later ``get_engine``
    loads the model again.
    """
    with _ENGINES_LOCK:
        engines = list(_ENGINES.values())
        _ENGINES.clear()
        _LOADING.clear()
    for engine in engines:
        engine.close(wait)


atexit.register(close_engines)  # before module teardown; a server closes them on stop too
