// The page clock (Playwright's, installed paused by pagetime.py) moved when a timer
// is due within `within` ms of page time: by `step` ms, or straight to the end of
// the step that holds the next timer, never past `within`. `within` < 0: moved by
// `step` whatever is due (an embedded frame, keeping time with its page). Returns
// the ms moved and what is pending after; null: no page clock in this frame.
// Playwright's public run_for also records each move for every later document of
// the context, so the next variant would start later: the controller is moved here.
async ({ step, within }) => {
  const clock = window.__pwClock && window.__pwClock.controller;
  if (!clock || !clock._timers) return null;
  const pending = () => [...clock._timers.values()].map((t) => ({
    kind: t.type, delay: t.delay, due: t.callAt - clock._now.ticks,
  })).sort((x, y) => x.due - y.due);
  let ran = 0;
  if (within < 0) ran = step;
  else {
    const first = pending()[0];
    if (first && first.due <= within) ran = Math.min(within, Math.max(step, Math.ceil(first.due / step) * step));
  }
  if (ran > 0) await clock.runFor(ran);
  const left = pending();
  return { ran, timers: left.slice(0, 20), count: left.length };
}
