//! What `#[arg(from = table.column)]` checks at compile time: that the
//! window has that table block, that its rows have that column, and that
//! the column's values can fill the argument (a person who picks a text
//! cell for a whole-number argument would only hear "must be a whole
//! number" from the form).
//!
//! `#[window]` lists its table blocks ([`TableBlocks`]) and
//! `#[derive(Row)]` the kind of value in each column ([`ValueKind`]);
//! `#[actions]` looks the source up by name in a constant, so a mistake is
//! one error in the user's words, naming the user's items, and never a
//! failed lookup of a generated name. Not public API.

use std::marker::PhantomData;

/// What kind of value a column holds or an argument takes, as far as
/// filling one from the other goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// `String` and friends.
    Text,
    /// Rust's integer types.
    Whole,
    /// `f32` and `f64`.
    Number,
    /// `bool`.
    Bool,
    /// Anything else: not checked.
    Other,
}

/// `KindOf::<T>::KIND`: the [`ValueKind`] of `T`, from an inherent
/// constant for the types that have one and [`AnyKind`]'s `Other` for the
/// rest (inherent items win over a trait's, so this needs no
/// specialization). A generic `T` is `Other`.
///
/// ```
/// use purview::projection::{AnyKind as _, KindOf, ValueKind};
/// assert_eq!(KindOf::<Option<u32>>::KIND, ValueKind::Whole);
/// assert_eq!(KindOf::<Vec<u32>>::KIND, ValueKind::Other);
/// ```
pub struct KindOf<T: ?Sized>(PhantomData<T>);

/// The [`ValueKind`] of a type without one of its own: `Other`.
pub trait AnyKind {
    /// `Other`.
    const KIND: ValueKind = ValueKind::Other;
}

impl<T: ?Sized> AnyKind for KindOf<T> {}

macro_rules! kinds {
    ($kind:ident: $($t:ty),*) => {$(
        impl KindOf<$t> {
            /// The kind of this type's values.
            pub const KIND: ValueKind = ValueKind::$kind;
        }
        impl KindOf<Option<$t>> {
            /// The kind of this type's values.
            pub const KIND: ValueKind = ValueKind::$kind;
        }
    )*};
}

// Borrowed text is left out: an inherent constant for `&'static str` would
// hold a row with a shorter borrow to `'static`.
kinds!(Text: String, char);
kinds!(Whole: u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);
kinds!(Number: f32, f64);
kinds!(Bool: bool);

/// What `#[window]` writes for each table block: its block id, its
/// field's name, its row type's field names and value kinds, and its
/// number of columns.
#[derive(Debug, Clone, Copy)]
pub struct TableKeys {
    /// The struct field holding the table, as `from = ..` names it.
    pub name: &'static str,
    /// The table block's id.
    pub block: &'static str,
    /// The row type's field names, when it derives [`Row`](crate::Row).
    pub fields: &'static [&'static str],
    /// The kind of each column's values, when the row type derives `Row`.
    pub kinds: &'static [ValueKind],
    /// How many columns it has (`columns = [..]`), or 0 when its fields say.
    pub width: usize,
}

impl TableKeys {
    /// The column of field `name`, if the row type has it.
    pub const fn field(&self, name: &str) -> Option<usize> {
        let mut i = 0;
        while i < self.fields.len() {
            if purview_naming::same_name(self.fields[i], name) {
                return Some(i);
            }
            i += 1;
        }
        None
    }

    /// Whether the table has a column at `index`.
    pub const fn has_column(&self, index: usize) -> bool {
        index < self.width || index < self.fields.len()
    }
}

/// The table blocks of a `#[window]` struct, for `from = table.column`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no table blocks for `from = table.column` to name",
    label = "`from =` names a table block of this window",
    note = "`from = table.column` names a `#[block(table)]` field of a `#[purview::window]` struct and a field of its rows"
)]
pub trait TableBlocks {
    /// The window's tables; `None` when `#[window]` itself had a mistake,
    /// which is reported there, so nothing is checked against a guess.
    const TABLES: Option<&'static [TableKeys]>;
}

/// A column as `from = table.column` names it.
#[derive(Debug, Clone, Copy)]
pub enum Column {
    /// `table.field`.
    Named(&'static str),
    /// `table.0`.
    At(usize),
}

/// What [`check_source`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceCheck {
    /// The column can fill the argument (or nothing could be checked).
    Fits,
    /// The window has no table block of that name.
    NoTable,
    /// The table's rows have no field of that name.
    NoField,
    /// The table has no column at that place.
    NoColumn,
    /// The column holds values of this kind, which cannot fill the argument.
    Holds(ValueKind),
}

const fn find_table(tables: &'static [TableKeys], table: &str) -> Option<TableKeys> {
    let mut i = 0;
    while i < tables.len() {
        if purview_naming::same_name(tables[i].name, table) {
            return Some(tables[i]);
        }
        i += 1;
    }
    None
}

/// Whether a column of `column` values can fill an argument taking
/// `argument` values. Text takes anything, as a person's pick of a cell
/// reads as text; numbers take numbers, whole numbers only whole ones.
const fn fills(column: ValueKind, argument: ValueKind) -> bool {
    use ValueKind::{Bool, Number, Other, Text, Whole};
    matches!(
        (column, argument),
        (Other, _) | (_, Other | Text) | (Whole, Whole | Number) | (Number, Number) | (Bool, Bool)
    )
}

/// Checks `from = table.column` for an argument of kind `argument`.
///
/// ```
/// use purview::projection::{Column, SourceCheck, TableKeys, ValueKind, check_source};
/// const RETURNS: &[TableKeys] = &[TableKeys {
///     name: "returns", block: "returns", fields: &["rma", "order"],
///     kinds: &[ValueKind::Text, ValueKind::Whole], width: 0,
/// }];
/// let check = |table, column| check_source(Some(RETURNS), table, column, ValueKind::Whole);
/// assert_eq!(check("returns", Column::Named("order")), SourceCheck::Fits);
/// assert_eq!(check("returns", Column::Named("rma")), SourceCheck::Holds(ValueKind::Text));
/// assert_eq!(check("refunds", Column::At(0)), SourceCheck::NoTable);
/// assert_eq!(check("returns", Column::At(2)), SourceCheck::NoColumn);
/// ```
pub const fn check_source(
    tables: Option<&'static [TableKeys]>,
    table: &str,
    column: Column,
    argument: ValueKind,
) -> SourceCheck {
    let Some(tables) = tables else { return SourceCheck::Fits };
    let Some(keys) = find_table(tables, table) else { return SourceCheck::NoTable };
    let index = match column {
        Column::Named(name) => match keys.field(name) {
            Some(index) => index,
            None => return SourceCheck::NoField,
        },
        Column::At(index) if keys.has_column(index) => index,
        Column::At(_) => return SourceCheck::NoColumn,
    };
    if index < keys.kinds.len() && !fills(keys.kinds[index], argument) {
        return SourceCheck::Holds(keys.kinds[index]);
    }
    SourceCheck::Fits
}

/// Where the values of `from = table.column` are at run time: the table
/// block's id and the column's place (a source that failed
/// [`check_source`] never compiles, so the fallbacks are never used).
///
/// ```
/// use purview::projection::{Column, TableKeys, source_of};
/// const PETS: &[TableKeys] = &[TableKeys {
///     name: "pets", block: "pets", fields: &["id", "name"], kinds: &[], width: 0,
/// }];
/// assert_eq!(source_of(Some(PETS), "pets", Column::Named("name")), ("pets", 1));
/// ```
pub const fn source_of(
    tables: Option<&'static [TableKeys]>,
    table: &str,
    column: Column,
) -> (&'static str, usize) {
    let Some(tables) = tables else { return ("", 0) };
    let Some(keys) = find_table(tables, table) else { return ("", 0) };
    let index = match column {
        Column::Named(name) => match keys.field(name) {
            Some(index) => index,
            None => 0,
        },
        Column::At(index) => index,
    };
    (keys.block, index)
}
