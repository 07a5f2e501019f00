//! Inputs that once tripped the macros: `Self` in argument types, a user's
//! own `#[serde(default)]`, raw identifiers in templates, generic rows.

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
}

fn main() {
    let app = App::builder().build();
    app.open(Thing::default()).unwrap();
    assert_eq!(
        purview::Window::title(&Thing { r#type: "box".into(), ..Thing::default() }),
        "Kind: box"
    );
}

#[test]
fn compiles_and_runs() {
    main();
}
