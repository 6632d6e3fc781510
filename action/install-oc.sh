#!/usr/bin/env bash
# Installs `oc` for the action (action.yml): the release binary of
# OC_VERSION (`latest` or a version such as 0.2.0) through the release's
# shell installer, from the repository the action was taken from; or, with
# OC_VERSION=source, when there is no such release, or when the action is
# used from a checkout (`uses: ./`), a build of the action's own source
# with cargo. Puts `oc` on the job's PATH.
#
# Environment: OC_VERSION, OC_ACTION_PATH (the action's files),
# OC_ACTION_REPOSITORY (owner/name; empty for `uses: ./`), RUNNER_TEMP,
# GITHUB_PATH.
set -euo pipefail

bin_dir="$RUNNER_TEMP/oc-bin"
mkdir -p "$bin_dir"
echo "$bin_dir" >> "$GITHUB_PATH"

from_release() {
    local base="https://github.com/$OC_ACTION_REPOSITORY/releases"
    local url="$base/download/v${OC_VERSION#v}/ollama-code-installer.sh"
    [ "$OC_VERSION" = latest ] && url="$base/latest/download/ollama-code-installer.sh"
    echo "oc: installing the release binary from $url"
    curl --proto '=https' --tlsv1.2 -fsSL "$url" -o "$RUNNER_TEMP/oc-installer.sh" || return 1
    # The installer puts the binary in OLLAMA_CODE_UNMANAGED_INSTALL and
    # leaves shell profiles alone.
    OLLAMA_CODE_UNMANAGED_INSTALL="$bin_dir" sh "$RUNNER_TEMP/oc-installer.sh" --quiet || return 1
    [ -x "$bin_dir/oc" ] || { [ -x "$bin_dir/bin/oc" ] && ln -sf "$bin_dir/bin/oc" "$bin_dir/oc"; }
}

from_source() {
    command -v cargo >/dev/null 2>&1 || {
        echo "::error title=oc::building oc from source needs a Rust toolchain (1.89 or newer): add a setup step such as dtolnay/rust-toolchain, or give the action a released version"
        exit 1
    }
    echo "oc: building oc from the action's source with cargo (a few minutes)"
    cargo install --locked --quiet --path "$OC_ACTION_PATH" --root "$RUNNER_TEMP/oc-cargo"
    ln -sf "$RUNNER_TEMP/oc-cargo/bin/oc" "$bin_dir/oc"
}

if [ "$OC_VERSION" = source ] || [ -z "${OC_ACTION_REPOSITORY:-}" ]; then
    from_source
elif ! from_release; then
    echo "::notice title=oc::no release binary for '$OC_VERSION' in $OC_ACTION_REPOSITORY: building from source instead"
    from_source
fi
"$bin_dir/oc" --version
