# Sourced by ./scripts/test and ./scripts/interop: `stage TEXT` prints a
# stage's heading with how far into the run it starts (from the first
# script's start), so a slow stage shows in any log of a run.
export PURVIEW_TEST_STARTED="${PURVIEW_TEST_STARTED:-$(date +%s)}"
stage() {
    local elapsed=$(($(date +%s) - PURVIEW_TEST_STARTED))
    printf '== [%d:%02d] %s\n' $((elapsed / 60)) $((elapsed % 60)) "$*"
}
