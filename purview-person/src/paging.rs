//! Paging through a table too large to show whole (§9): where the rows
//! shown stand, and the offset each of First, Previous, Next, Last and
//! "Go to row" asks the table's load action for. A face draws the buttons
//! this gives and sends back the offset; it computes none.

use purview::serde::Serialize;

use crate::words;

/// Where a table's shown rows stand, and where each paging button goes.
///
/// ```
/// use purview_person::Paging;
///
/// let at = Paging::new(20, 20, 300, 20);
/// assert_eq!(at.label, "Rows 21–40 of 300");
/// assert_eq!((at.first, at.previous, at.next, at.last), (Some(0), Some(0), Some(40), Some(280)));
/// assert_eq!(at.go_to("300"), Ok(280));
/// assert_eq!(at.go_to("301"), Err("A row from 1 to 300".to_owned()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(crate = "purview::serde", rename_all = "camelCase")]
pub struct Paging {
    /// The offset of the first row shown.
    pub offset: usize,
    /// How many rows are shown.
    pub shown: usize,
    /// How many rows the table has.
    pub total: usize,
    /// How many rows a page holds.
    pub limit: usize,
    /// "Rows 21–40 of 300".
    pub label: String,
    /// Where First goes; `None` on the first page.
    pub first: Option<usize>,
    /// Where Previous goes; `None` on the first page.
    pub previous: Option<usize>,
    /// Where Next goes; `None` on the last page.
    pub next: Option<usize>,
    /// Where Last goes; `None` on the last page.
    pub last: Option<usize>,
    /// The hint of the row-number field ("1–300").
    pub row_hint: String,
}

impl Paging {
    /// The paging of `shown` rows from `offset` of `total`, `limit` a page.
    ///
    /// ```
    /// let at = purview_person::Paging::new(280, 20, 300, 20);
    /// assert_eq!((at.label.as_str(), at.next, at.previous), ("Rows 281–300 of 300", None, Some(260)));
    /// ```
    pub fn new(offset: usize, shown: usize, total: usize, limit: usize) -> Self {
        let limit = limit.max(1);
        let last_page = total.saturating_sub(1) / limit * limit;
        let before = offset > 0;
        let after = offset.saturating_add(shown) < total;
        let from = if shown == 0 { offset } else { offset.saturating_add(1) };
        Self {
            offset,
            shown,
            total,
            limit,
            label: words::rows_of(from, offset.saturating_add(shown), total),
            first: before.then_some(0),
            previous: before.then(|| offset.saturating_sub(limit)),
            next: after.then(|| offset + shown),
            last: after.then_some(last_page),
            row_hint: words::row_range(total),
        }
    }

    /// The offset of the page holding row `typed` (counted from 1), or what
    /// to say when it is no row of the table.
    ///
    /// ```
    /// let at = purview_person::Paging::new(0, 20, 300, 20);
    /// assert_eq!(at.go_to(" 45 "), Ok(40));
    /// assert_eq!(at.go_to("none"), Err("A row from 1 to 300".to_owned()));
    /// ```
    pub fn go_to(&self, typed: &str) -> Result<usize, String> {
        match typed.trim().parse::<usize>() {
            Ok(row) if (1..=self.total).contains(&row) => Ok((row - 1) / self.limit * self.limit),
            _ => Err(words::row_refused(self.total)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s9_the_last_of_300_rows_is_one_click_away() {
        let first = Paging::new(0, 20, 300, 20);
        assert_eq!((first.first, first.previous), (None, None));
        assert_eq!((first.next, first.last), (Some(20), Some(280)));
        let last = Paging::new(280, 20, 300, 20);
        assert_eq!((last.next, last.last), (None, None));
        assert_eq!(last.label, "Rows 281–300 of 300");
    }

    #[test]
    fn s9_go_to_row_finds_its_page_and_refuses_what_is_no_row() {
        let at = Paging::new(0, 20, 300, 20);
        assert_eq!(at.go_to(" 21 "), Ok(20));
        assert_eq!(at.go_to("1"), Ok(0));
        for refused in ["0", "", "x", "-3", "301"] {
            assert_eq!(at.go_to(refused), Err("A row from 1 to 300".to_owned()), "{refused:?}");
        }
    }

    #[test]
    fn s9_an_empty_table_and_a_page_of_zero_rows_do_not_divide_by_zero() {
        let empty = Paging::new(0, 0, 0, 0);
        assert_eq!(empty.label, "Rows 0–0 of 0");
        assert_eq!((empty.next, empty.last), (None, None));
    }

    #[test]
    fn s9_a_page_at_the_end_of_the_numbers_a_client_may_send_is_worded_not_a_panic() {
        // A card hands back a loader's answer as it came: any offset.
        let far = Paging::new(usize::MAX, 3, usize::MAX, 3);
        assert!(far.label.starts_with(&format!("Rows {}", usize::MAX)), "{}", far.label);
        assert_eq!(far.next, None);
    }
}
