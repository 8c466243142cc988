//! Group commit: the writes of one control-plane pass committed to the file together.
//!
//! The driver writes each pod it creates, binds and starts as an API write would (read,
//! checked and changed under the store's lock, one resourceVersion each, in order); with a
//! file, a transaction per write was an fsync per write, and filling 150,000 pods took
//! 300,000 of them. Inside a group ([`Store::group`]) a write goes into one open redb
//! transaction and into memory, and its watch event is held back. The group is committed (one
//! fsync) and its events published, in order, when the group ends, when it holds [`GROUP_MAX`]
//! writes, when it wrote an object kept in the file only (read from the file), and before any
//! other thread takes the store's lock: no reader, watch or feed sees a write before it is
//! durable, and a client's write is committed (after the group's) before it is acknowledged.
//! A group's writes are acknowledged to nobody until it is committed; a commit that fails
//! undoes the group in memory (nothing of it was published). Without a file there is nothing
//! to group: each write is published as it is made.

use std::sync::Arc;
use std::thread::ThreadId;

use super::{HISTORY, Inner, Store, StoreError, Stored, WatchEvent, storage_err};

/// The most writes a group holds before they are committed (so that watchers see a long
/// pass's writes as it goes, and the events held back stay few).
pub const GROUP_MAX: usize = 2048;

/// The writes of a group not yet committed.
pub(super) struct Group {
    /// The thread making the group's writes.
    owner: ThreadId,
    /// The open transaction (begun at the first write after a commit).
    pub(super) txn: Option<redb::WriteTransaction>,
    /// Whether the group wrote an object kept in the file only.
    pub(super) disk: bool,
    /// The watch events of the writes, in order, to publish once committed.
    pub(super) pending: Vec<Arc<WatchEvent>>,
    /// Each object held in memory that a write replaced or removed, as it was (resource, key,
    /// object; `None`: there was none), in order.
    pub(super) undo: Vec<(String, String, Option<Stored>)>,
    /// The store's resourceVersion before the first write not yet committed.
    pub(super) rv: u64,
}

impl Group {
    /// Whether the group is made by the calling thread.
    pub(super) fn is_mine(&self) -> bool {
        self.owner == std::thread::current().id()
    }

    /// Whether the group's writes must be committed before the calling thread goes on.
    pub(super) fn must_flush(&self) -> bool {
        !self.pending.is_empty()
            && (!self.is_mine() || self.disk || self.pending.len() >= GROUP_MAX)
    }
}

impl Inner {
    /// Publishes a committed write: to the feeds, the history and the watchers.
    pub(super) fn publish(&mut self, ev: Arc<WatchEvent>) {
        self.feeds.retain(|f| f.send(Arc::clone(&ev)).is_ok());
        self.history.push_back(ev.clone());
        while self.history.len() > HISTORY {
            if let Some(old) = self.history.pop_front() {
                self.oldest = old.rv;
            }
        }
        // No receiver is fine.
        let _ = self.tx.send(ev);
    }

    /// Commits the group's writes and publishes them; a commit that fails undoes them.
    pub(super) fn flush(&mut self) -> Result<(), StoreError> {
        let Some(g) = self.group.as_mut() else {
            return Ok(());
        };
        let txn = g.txn.take();
        let pending = std::mem::take(&mut g.pending);
        let undo = std::mem::take(&mut g.undo);
        let rv = g.rv;
        g.disk = false;
        match txn.map_or(Ok(()), |t| t.commit().map_err(storage_err)) {
            Ok(()) => {
                for ev in pending {
                    self.publish(ev);
                }
                Ok(())
            }
            Err(e) => {
                self.undo(undo, rv);
                eprintln!(
                    "repel serve: a group of {} writes failed: {e}",
                    pending.len()
                );
                Err(e)
            }
        }
    }

    /// Drops the group's writes not yet committed (a write of it failed).
    pub(super) fn abort(&mut self) {
        let Some(g) = self.group.as_mut() else {
            return;
        };
        g.txn = None;
        g.pending.clear();
        g.disk = false;
        let undo = std::mem::take(&mut g.undo);
        let rv = g.rv;
        self.undo(undo, rv);
    }

    /// Restores the objects held in memory before `undo`'s writes, and the resourceVersion.
    fn undo(&mut self, undo: Vec<(String, String, Option<Stored>)>, rv: u64) {
        for (resource, k, old) in undo.into_iter().rev() {
            let m = self.objects.entry(resource).or_default();
            match old {
                Some(o) => {
                    m.insert(k, o);
                }
                None => {
                    m.remove(&k);
                }
            }
        }
        self.rv = rv;
    }
}

/// A group of writes being made ([`Store::group`]); ended (committed) when dropped or by
/// [`Grouped::finish`].
pub struct Grouped<'a> {
    /// The store, when this handle began the group (a group within a group is the outer one).
    store: Option<&'a Store>,
}

impl Grouped<'_> {
    /// Ends the group: commits its writes and publishes them.
    pub fn finish(mut self) -> Result<(), StoreError> {
        self.end()
    }

    fn end(&mut self) -> Result<(), StoreError> {
        let Some(store) = self.store.take() else {
            return Ok(());
        };
        let mut g = store.lock();
        let r = g.flush();
        g.group = None;
        r
    }
}

impl Drop for Grouped<'_> {
    fn drop(&mut self) {
        // An error was reported by the flush.
        let _ = self.end();
    }
}

impl Store {
    /// Groups the calling thread's writes until the returned handle is finished or dropped:
    /// with a file, they are committed together (see the module documentation). Each write is
    /// made as it would be alone (read, checked, given its resourceVersion, in order), and
    /// returns as it would; it is durable, and seen by anyone else, once the group commits.
    pub fn group(&self) -> Grouped<'_> {
        let mut g = self.lock();
        if g.db.is_none() || g.group.is_some() {
            return Grouped { store: None };
        }
        g.group = Some(Group {
            owner: std::thread::current().id(),
            txn: None,
            disk: false,
            pending: Vec::new(),
            undo: Vec::new(),
            rv: g.rv,
        });
        Grouped { store: Some(self) }
    }
}
