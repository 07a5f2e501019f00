use purview::{Context, actions, window};

#[window]
#[derive(Clone, Default)]
struct Detail;

#[actions]
impl Detail {}

#[window]
#[derive(Clone)]
struct Inbox;

#[actions]
impl Inbox {
    #[action]
    fn open_ticket(&mut self, cx: &mut Context) {
        cx.open(Detail)?;
    }
}

fn main() {}
