//! Records how the engine was compiled, so that `tcpeval bench` can say
//! which build it measured: `plain`, `profile-guided` (rustc's
//! `-Cprofile-use`, see `scripts/build_pgo.sh`) or `instrumented`
//! (`-Cprofile-generate`, the training build, much slower).

fn main() {
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    // `-Cprofile-use=P` or `-C profile-use=P`: join each `-C` to its value.
    let joined = flags.replace("-C\u{1f}", "-C");
    let has = |name: &str| {
        joined
            .split('\u{1f}')
            .any(|f| f.starts_with(&format!("-C{name}")))
    };
    let build = if has("profile-use") {
        "profile-guided"
    } else if has("profile-generate") {
        "instrumented"
    } else {
        "plain"
    };
    println!("cargo:rustc-env=TCPEVAL_ENGINE_BUILD={build}");
}
