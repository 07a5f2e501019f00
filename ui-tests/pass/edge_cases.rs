//! Inputs that once tripped the macros: `Self` in argument types, a user's
//! own `#[serde(default)]`, raw identifiers in templates, generic rows;
//! and what the checks of `from =`, `range` and `approval` must let pass.

use purview::{App, Row, actions, window};

#[derive(Clone, Row)]
struct Pair<T> {
    key: String,
    value: T,
}

#[window(title = "Kind: {r#type}", summary = "{r#type} with {count:>3} items")]
#[derive(Clone, Default, serde::Deserialize, schemars::JsonSchema)]
struct Thing {
    r#type: String,
    count: u32,
    #[block(table)]
    #[serde(skip)]
    #[schemars(skip)]
    pairs: Vec<Pair<u8>>,
    #[block(table, columns = ["Day", "Visits"])]
    #[serde(skip)]
    #[schemars(skip)]
    visits: Vec<(String, u32)>,
}

#[actions]
impl Thing {
    /// Replace the whole thing.
    #[action]
    fn replace(&mut self, with: Self) {
        *self = with;
    }

    /// An optional argument with its own default.
    #[action]
    fn tag(&mut self, #[serde(default)] label: Option<String>) {
        let _ = label;
    }

    /// Arguments filled from columns whose values they take: text from
    /// text, any value from a generic column, a number from whole numbers.
    #[action]
    fn pick(
        &mut self,
        #[arg(from = pairs.key)] key: String,
        #[arg(from = pairs.value)] value: Option<u8>,
        #[arg(from = visits.1, range(min = 0.5))] visits: f64,
    ) {
        let _ = (key, value, visits);
    }

    /// Bounds at the edges of what their types hold.
    #[action]
    fn bound(
        &mut self,
        #[arg(range(min = -128, max = 127))] small: i8,
        #[arg(range(min = 1.0, max = 4294967295))] large: u32,
    ) {
        let _ = (small, large);
    }

    /// Asks a person, and can be changed back.
    #[action(approval, destructive = false)]
    fn rename(&mut self, name: String) {
        self.r#type = name;
    }
}

fn main() {
    let app = App::builder().build();
    app.open(Thing::default()).unwrap();
    assert_eq!(
        purview::Window::title(&Thing { r#type: "box".into(), ..Thing::default() }),
        "Kind: box"
    );
    // Each source is found by its table's name, at its column's place.
    let actions = <Thing as purview::Actions>::actions();
    let pick = actions.iter().find(|a| a.name() == "pick").unwrap();
    let sources: Vec<_> = pick.sources().iter().map(|s| (s.table.as_ref(), s.column)).collect();
    assert_eq!(sources, [("pairs", 0), ("pairs", 1), ("visits", 1)]);
}

#[test]
fn compiles_and_runs() {
    main();
}
