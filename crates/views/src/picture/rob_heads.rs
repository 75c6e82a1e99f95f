//! The ROB head over time: a list of (from, blame) change-points appended in
//! commit order. A backend dispatch gap (full ROB, scheduler, load buffer) is
//! charged to the head in the middle of the gap: a gap behind a full ROB ends
//! when the head commits, so one head holds it nearly always, and the middle
//! tells which part of that head's wait (dependence before its penalty, the
//! penalty itself) the gap lies in.

use crate::cpi_stacks::Component;

pub(crate) struct RobHeads {
    /// (from, blame) in time order, from `start` on.
    points: Vec<(f64, Component)>,
    start: usize,
}

impl RobHeads {
    pub(crate) fn new() -> Self {
        let mut points = Vec::with_capacity(1024);
        points.push((0.0, Component::Other));
        RobHeads { points, start: 0 }
    }

    /// Starts again at `t` (after a stretch nobody looked at): nobody's until a head commits.
    pub(crate) fn restart(&mut self, t: f64) {
        self.points.clear();
        self.points.push((t, Component::Other));
        self.start = 0;
    }

    /// Drops the history before `t` (keeps the entry in force at `t`).
    #[inline(always)]
    pub(crate) fn drop_before(&mut self, t: f64) {
        let h = &self.points;
        let mut k = self.start;
        while k + 1 < h.len() && h[k + 1].0 <= t {
            k += 1;
        }
        self.start = k;
        if k > 1024 && k * 2 > h.len() {
            self.points.drain(..k);
            self.start = 0;
        }
    }

    /// The blame of the head at `t` (dropping the history before it).
    #[inline]
    pub(crate) fn blame_at(&mut self, t: f64) -> Component {
        self.drop_before(t);
        match self.points.get(self.start) {
            Some(&(start, blame)) if start <= t => blame,
            _ => Component::Other,
        }
    }

    /// A head waited for its own result from `from`: dependence, then its
    /// penalty `penalty` from `penalty_from` to `penalty_end`, then dependence.
    /// `now`: the dispatch point (the history before it is dropped when long).
    #[inline]
    pub(crate) fn push_wait(&mut self, from: f64, penalty_from: f64, penalty_end: f64, penalty: Component, now: f64) {
        if self.points.len() - self.start > 2048 {
            self.drop_before(now);
        }
        self.points.extend_from_slice(&[(from, Component::Dependence), (penalty_from, penalty), (penalty_end, Component::Dependence)]);
    }
}
