//! Where each window goes on the desk and how much room it may take, so
//! windows never open on top of each other in any viewport:
//!
//! - top-level windows are tiled across the room beside the main panel, in
//!   opening order, retiled when one opens or closes or the viewport
//!   changes size; below the smallest useful tile they cascade instead;
//! - a window the person moved stays where it was put, out of the tiling;
//! - a window-level modal opens over its owner (a chain steps down and
//!   right, so each dialog's owner stays in sight);
//! - an app-level modal sits in the middle of the viewport.
//!
//! Each window is as large as its contents, at most its tile (or, for a
//! modal, most of the viewport); what does not fit scrolls.

use std::collections::{HashMap, HashSet};

use egui::{Align2, Pos2, Rect, Vec2, pos2, vec2};
use purview::model::WindowState;

/// The gap between tiles and around the room they share.
pub(crate) const GAP: f32 = 8.0;
/// The smallest tile worth drawing a window in; below it windows cascade.
const MIN_TILE: Vec2 = vec2(260.0, 170.0);
/// The size tiles aim for: a window of a few fields and a table.
const GOOD_TILE: Vec2 = vec2(460.0, 340.0);
/// The widest a dialog grows.
const DIALOG_WIDTH: f32 = 460.0;
/// How far each cascaded window, and each dialog of a chain, steps.
const STEP: f32 = 28.0;

/// The main panel's width in a viewport of `width`: the rest is the room
/// the windows are tiled in.
pub(crate) fn side_width(width: f32) -> f32 {
    (width * 0.22).clamp(170.0, 280.0)
}

/// Where one window is drawn this frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Place {
    /// Where the window's `pivot` goes.
    pub pos: Pos2,
    pub pivot: Align2,
    /// Whether to move it there now (else it stays where egui remembers
    /// it, where the person may have moved it).
    pub now: bool,
    /// The most room it may take, contents scrolling beyond.
    pub max: Vec2,
}

/// The desk's placements, kept across frames.
#[derive(Debug, Default)]
pub(crate) struct Layout {
    /// The tile each top-level window was given.
    tiles: HashMap<String, Rect>,
    /// Windows the person moved: they stay where put.
    moved: HashSet<String>,
    /// Each window's rectangle as last drawn.
    drawn: HashMap<String, Rect>,
    /// The room tiled last, and the windows tiled in it, in order.
    tiled: Option<(Rect, Vec<String>)>,
    /// Windows given a new tile this frame: egui is told to move them.
    fresh: HashSet<String>,
}

impl Layout {
    /// Tiles the top-level windows the person has not moved across
    /// `room`, when they or the room changed since the last tiling;
    /// forgets closed windows.
    pub(crate) fn arrange(&mut self, room: Rect, windows: &[&WindowState]) {
        self.fresh.clear();
        let open: HashSet<&str> = windows.iter().map(|w| w.id.as_str()).collect();
        self.tiles.retain(|id, _| open.contains(id.as_str()));
        self.moved.retain(|id| open.contains(id.as_str()));
        self.drawn.retain(|id, _| open.contains(id.as_str()));
        let tiled: Vec<String> = windows
            .iter()
            .filter(|w| !w.modal && !self.moved.contains(&w.id))
            .map(|w| w.id.clone())
            .collect();
        if self.tiled.as_ref().is_some_and(|(r, ids)| *r == room && *ids == tiled) {
            return;
        }
        for (id, tile) in tiled.iter().zip(tiles(room, tiled.len())) {
            if self.tiles.get(id) != Some(&tile) {
                self.fresh.insert(id.clone());
            }
            self.tiles.insert(id.clone(), tile);
        }
        self.tiled = Some((room, tiled));
    }

    /// Where `window` goes this frame, in `viewport`.
    pub(crate) fn place(&self, window: &WindowState, viewport: Rect) -> Place {
        // A dialog: a question and a few fields, never the whole screen.
        let most = (viewport.size() * vec2(0.8, 0.85)).min(vec2(DIALOG_WIDTH, f32::INFINITY));
        if window.modal {
            let Some(owner) = window.owner_id.as_deref() else {
                // The app's own question: in the middle, above everything.
                return Place {
                    pos: viewport.center(),
                    pivot: Align2::CENTER_CENTER,
                    now: true,
                    max: most,
                };
            };
            // Over its owner, a step lower and to the right, so a chain of
            // dialogs shows each one's owner behind it.
            let over = self.drawn.get(owner).or_else(|| self.tiles.get(owner));
            let at = over.map_or(viewport.center(), |r| r.center_top() + vec2(STEP, 2.0 * STEP));
            return Place { pos: at, pivot: Align2::CENTER_TOP, now: true, max: most };
        }
        if let Some(tile) = self.tiles.get(&window.id).filter(|_| !self.moved.contains(&window.id))
        {
            let now = self.fresh.contains(&window.id);
            return Place { pos: tile.min, pivot: Align2::LEFT_TOP, now, max: tile.size() };
        }
        // Moved by the person: where it is, as large as the viewport lets.
        let at = self.drawn.get(&window.id).map_or(viewport.min, |r| r.min);
        let max = (viewport.max - at).max(MIN_TILE);
        Place { pos: at, pivot: Align2::LEFT_TOP, now: false, max }
    }

    /// Records where `id` was drawn; a top-level window the person dragged
    /// away from its tile (`dragging`: a pointer is down) keeps its place
    /// from now on.
    pub(crate) fn drawn(&mut self, id: &str, rect: Rect, place: Place, dragging: bool) {
        let tile = self.tiles.get(id).filter(|_| !self.moved.contains(id));
        if let Some(tile) = tile
            && dragging
            && !place.now
            && place.pivot == Align2::LEFT_TOP
            && (rect.min - tile.min).length() > 2.0
        {
            self.moved.insert(id.to_owned());
            // Retile the rest without it.
            self.tiled = None;
        }
        self.drawn.insert(id.to_owned(), rect);
    }

    /// Each window's rectangle as last drawn (for tests and the host).
    pub(crate) fn drawn_rects(&self) -> &HashMap<String, Rect> {
        &self.drawn
    }
}

/// How many top-level windows the desk draws at once in `room`: as many
/// as tile at the smallest useful size. More would only be drawn beneath
/// others, costing every frame for nothing; the rest wait in the main
/// panel's list until the person raises one.
pub(crate) fn capacity(room: Rect) -> usize {
    let across = ((room.width() + GAP) / (MIN_TILE.x + GAP)).floor().max(1.0);
    let down = ((room.height() + GAP) / (MIN_TILE.y + GAP)).floor().max(1.0);
    (across * down) as usize
}

/// `n` tiles across `room`, in rows, as close to a good window's shape as
/// the room allows; when they would be smaller than a useful window,
/// cascaded tiles of that size instead.
pub(crate) fn tiles(room: Rect, n: usize) -> Vec<Rect> {
    if n == 0 {
        return Vec::new();
    }
    let grid = |columns: usize| {
        let rows = n.div_ceil(columns);
        let size = vec2(
            (room.width() - GAP * (columns as f32 - 1.0)) / columns as f32,
            (room.height() - GAP * (rows as f32 - 1.0)) / rows as f32,
        );
        (columns, size)
    };
    // The column count whose tiles come nearest the good shape, of those
    // large enough; the most room per window breaks ties.
    let fits = |size: Vec2| size.x >= MIN_TILE.x && size.y >= MIN_TILE.y;
    let misfit = |size: Vec2| {
        let aspect = (size.x / size.y) / (GOOD_TILE.x / GOOD_TILE.y);
        (aspect.ln()).abs() - (size.x * size.y).ln() * 0.01
    };
    let best = (1..=n)
        .map(grid)
        .filter(|(_, size)| fits(*size))
        .min_by(|a, b| misfit(a.1).total_cmp(&misfit(b.1)));
    let Some((columns, size)) = best else {
        return cascade(room, n);
    };
    (0..n)
        .map(|i| {
            let (column, row) = ((i % columns) as f32, (i / columns) as f32);
            let min = room.min + vec2(column * (size.x + GAP), row * (size.y + GAP));
            Rect::from_min_size(min, size)
        })
        .collect()
}

/// Windows stepped down and right from the room's corner, each as large
/// as the room allows from where it starts.
fn cascade(room: Rect, n: usize) -> Vec<Rect> {
    let steps = ((room.size() - MIN_TILE).min_elem() / STEP).max(0.0) as usize + 1;
    (0..n)
        .map(|i| {
            let min = room.min + Vec2::splat(STEP * (i % steps) as f32);
            Rect::from_min_max(min, pos2(room.max.x, room.max.y).max(min + MIN_TILE))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overlap(tiles: &[Rect]) -> bool {
        tiles.iter().enumerate().any(|(i, a)| tiles[i + 1..].iter().any(|b| a.intersects(*b)))
    }

    #[test]
    fn tiles_never_overlap_and_stay_in_the_room_in_small_and_large_viewports() {
        for size in [vec2(800.0, 600.0), vec2(1400.0, 1000.0), vec2(1024.0, 768.0)] {
            let room = Rect::from_min_size(
                pos2(side_width(size.x) + GAP, GAP),
                size - vec2(side_width(size.x) + 2.0 * GAP, 2.0 * GAP),
            );
            for n in 1..=6 {
                let tiles = tiles(room, n);
                assert_eq!(tiles.len(), n);
                assert!(!overlap(&tiles), "{n} tiles overlap in {size:?}: {tiles:?}");
                assert!(
                    tiles.iter().all(|t| room.expand(0.5).contains_rect(*t)),
                    "{tiles:?} outside {room:?}"
                );
            }
        }
    }

    #[test]
    fn too_many_windows_for_the_room_cascade_at_a_useful_size() {
        let room = Rect::from_min_size(Pos2::ZERO, vec2(500.0, 400.0));
        let tiles = tiles(room, 12);
        assert!(tiles.iter().all(|t| t.width() >= MIN_TILE.x && t.height() >= MIN_TILE.y));
        assert_ne!(tiles[0].min, tiles[1].min, "each steps from the last");
    }
}
