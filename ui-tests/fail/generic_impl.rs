use purview::{actions, window};

#[window]
#[derive(Clone)]
struct Editor<T: Clone + Send + Sync + 'static> {
    value: T,
}

#[actions]
impl<T: Clone + Send + Sync + 'static> Editor<T> {
    #[action]
    fn set(&mut self, value: T) {
        self.value = value;
    }
}

fn main() {}
