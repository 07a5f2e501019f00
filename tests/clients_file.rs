//! A clients file that protects or refuses (RELIABILITY.md, "Who is a
//! client"): `--clients FILE` starts a server only when the file names a
//! client and no other user may read it, never beside a token left in the
//! environment, and no message it causes quotes a token. Each test starts
//! the order_desk binary as a person would.

use std::{os::unix::fs::PermissionsExt, path::PathBuf, process::Stdio, time::Duration};

use anyhow::{Context as _, Result, ensure};

const ORDER_DESK: &str = env!("CARGO_BIN_EXE_order_desk");
const TOKEN: &str = "6d1f0c9e8b7a65432f1e0d9c8b7a6543";
const OTHER_TOKEN: &str = "0a9b8c7d6e5f40312a3b4c5d6e7f8091";

/// A clients file holding `text`, with Unix permissions `mode`.
fn clients_file(name: &str, text: &str, mode: u32) -> Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("purview-clients-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(name);
    std::fs::write(&path, text)?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))?;
    Ok(path)
}

/// Starts order_desk on HTTP with `--clients path` (and `PURVIEW_TOKEN`
/// set to `environment`, if any); returns whether it served, and what it
/// said on stderr until then.
async fn start(path: &PathBuf, environment: Option<&str>) -> Result<(bool, String)> {
    let mut command = tokio::process::Command::new(ORDER_DESK);
    command
        .args(["--http", "127.0.0.1:0", "--clients"])
        .arg(path)
        .env_remove("PURVIEW_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(token) = environment {
        command.env("PURVIEW_TOKEN", token);
    }
    let mut child = command.spawn()?;
    let stderr = child.stderr.take().context("stderr")?;
    let mut lines = tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(stderr));
    let mut said = String::new();
    let read = async {
        while let Some(line) = lines.next_line().await? {
            said.push_str(&line);
            said.push('\n');
            if line.contains("MCP endpoint") {
                return anyhow::Ok(true);
            }
        }
        anyhow::Ok(false)
    };
    let served = tokio::time::timeout(Duration::from_secs(60), read).await??;
    if served {
        child.kill().await?;
    } else {
        let status = child.wait().await?;
        ensure!(!status.success(), "a refusal exits with a failure: {said}");
    }
    Ok((served, said))
}

/// RELIABILITY.md inventory, "the clients file": `--clients FILE` with no
/// client in it (empty, or only comments) served everyone with no token
/// and said nothing. Now it refuses to start, saying what to write.
#[tokio::test]
async fn s12_a_clients_file_naming_no_client_refuses_to_start() -> Result<()> {
    for (name, text) in [("empty", ""), ("comments", "# name token\n\n   \n# none yet\n")] {
        let path = clients_file(name, text, 0o600)?;
        let (served, said) = start(&path, None).await?;
        ensure!(!served, "{name}: served with no client named: {said}");
        ensure!(said.contains("names no client"), "{name}: {said}");
        ensure!(said.contains("NAME TOKEN") && said.contains("openssl rand"), "{name}: {said}");
    }
    // The same with a client in it serves: the refusal is for the emptiness.
    let path = clients_file("one", &format!("# name token\nhonest {TOKEN}\n"), 0o600)?;
    let (served, said) = start(&path, None).await?;
    ensure!(served, "{said}");
    Ok(())
}

/// RELIABILITY.md inventory, "the clients file": a clients file any user
/// could read handed every client's token to them. Now a file that users
/// other than the app's may read or change refuses to start, with the
/// `chmod` that fixes it, and quotes no token.
#[tokio::test]
async fn s12_a_clients_file_others_may_read_refuses_to_start() -> Result<()> {
    let text = format!("honest {TOKEN}\nother {OTHER_TOKEN}\n");
    for mode in [0o644, 0o640, 0o604, 0o620] {
        let path = clients_file(&format!("mode{mode:o}"), &text, mode)?;
        let (served, said) = start(&path, None).await?;
        ensure!(!served, "{mode:o}: served: {said}");
        ensure!(said.contains(&format!("chmod 600 {}", path.display())), "{mode:o}: {said}");
        ensure!(!said.contains(TOKEN) && !said.contains(OTHER_TOKEN), "{mode:o}: {said}");
    }
    Ok(())
}

/// RELIABILITY.md inventory, "the clients file": `PURVIEW_TOKEN` left in
/// the environment let in one more client, `bearer`, beside those the
/// clients file names, without a word. Now the two together refuse to
/// start, saying how to fix it, and quote neither token.
#[tokio::test]
async fn s12_purview_token_beside_a_clients_file_refuses_to_start() -> Result<()> {
    let path = clients_file("with-environment", &format!("honest {TOKEN}\n"), 0o600)?;
    let (served, said) = start(&path, Some(OTHER_TOKEN)).await?;
    ensure!(!served, "served beside PURVIEW_TOKEN: {said}");
    ensure!(said.contains("PURVIEW_TOKEN") && said.contains("Unset"), "{said}");
    ensure!(!said.contains(TOKEN) && !said.contains(OTHER_TOKEN), "{said}");
    Ok(())
}

/// RELIABILITY.md inventory, "the clients file": a line with its columns
/// swapped was quoted in the refusal, token included (`client
/// "6d1f…": the bearer token must be at least 16 characters`), or, with
/// a long name, started a server whose "token" was the name. Now such a
/// line is refused by its number, and no message quotes either column of
/// any line.
#[tokio::test]
async fn s12_a_clients_line_with_its_columns_swapped_never_echoes_the_token() -> Result<()> {
    let lines = [
        format!("{TOKEN} honest"),
        format!("{TOKEN} claude-desktop-assistant"),
        // Beyond a name's characters, or three columns: still unquoted.
        format!("{TOKEN}/+= honest"),
        format!("honest {TOKEN} extra"),
    ];
    for line in lines {
        let path = clients_file("swapped", &format!("# name token\n{line}\n"), 0o600)?;
        let (served, said) = start(&path, None).await?;
        ensure!(!served, "{line}: served: {said}");
        ensure!(said.contains("line 2 of the clients file"), "{line}: {said}");
        ensure!(!said.contains(&TOKEN[..8]), "{line}: the token is quoted: {said}");
    }
    let path = clients_file("swapped", &format!("{TOKEN} honest\n"), 0o600)?;
    let (_, said) = start(&path, None).await?;
    ensure!(said.contains("name first, then its token"), "{said}");
    Ok(())
}
