//! Where the next cluster comes from after the first one: a live cluster's
//! watch events, or a recording's timeline. Either hands the app a freshly
//! built [`Loaded`] now and then; the app swaps it in and keeps what the
//! user was looking at (see `keep_place`).

use super::live::LiveFeed;
use super::loader::Loaded;
use super::replay::Replay;

pub enum Feed {
    Live(Box<LiveFeed>),
    Replay(Box<Replay>),
}

impl Feed {
    /// A newer cluster, when one is ready (never blocks).
    pub fn poll(&mut self) -> Option<Loaded> {
        match self {
            Feed::Live(l) => l.poll(),
            Feed::Replay(r) => r.poll(),
        }
    }

    /// Whether something the views show changed in the background since
    /// the last call (a trust check or comparison finished, the connection
    /// state or the last watch event changed), so a frame is due even
    /// though no key was pressed.
    pub fn take_repaint(&mut self) -> bool {
        match self {
            Feed::Live(l) => l.take_repaint(),
            Feed::Replay(r) => r.take_repaint(),
        }
    }

    /// Whether the feed needs frames (a rebuild in flight, playing).
    pub fn busy(&self) -> bool {
        match self {
            Feed::Live(l) => l.busy(),
            Feed::Replay(r) => r.busy(),
        }
    }

    pub fn replay(&self) -> Option<&Replay> {
        match self {
            Feed::Replay(r) => Some(r),
            Feed::Live(_) => None,
        }
    }

    pub fn replay_mut(&mut self) -> Option<&mut Replay> {
        match self {
            Feed::Replay(r) => Some(r),
            Feed::Live(_) => None,
        }
    }

    pub fn live(&self) -> Option<&LiveFeed> {
        match self {
            Feed::Live(l) => Some(l),
            Feed::Replay(_) => None,
        }
    }
}
