//! Two window types that share a name in different modules, and an
//! `#[actions]` impl chosen by `cfg`, are not "a second #[actions] impl".

mod inbox {
    use purview::{actions, window};

    #[window]
    #[derive(Clone)]
    pub struct Editor;

    #[actions]
    impl Editor {
        #[action]
        fn save(&mut self) {}
    }
}

mod drafts {
    use purview::{actions, window};

    #[window]
    #[derive(Clone)]
    pub struct Editor;

    // A `cfg` that always holds, beside one that never does, on purpose.
    #[allow(clippy::non_minimal_cfg)]
    #[cfg(all())]
    #[actions]
    impl Editor {
        #[action]
        fn keep(&mut self) {}
    }

    #[cfg(any())]
    #[actions]
    impl Editor {
        #[action]
        fn drop_it(&mut self) {}
    }
}

fn main() {
    let app = purview::App::builder().build();
    app.open(inbox::Editor).unwrap();
    app.open(drafts::Editor).unwrap();
}

#[test]
fn compiles_and_runs() {
    main();
}
