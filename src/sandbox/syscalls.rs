//! What Landlock leaves open, closed with seccomp filters
//! (`seccompiler`), each refusing a few system calls by their arguments:
//!
//! - always: `prlimit64` on another process (`oc` itself, to make it run
//!   out of descriptors, CPU time or file size and so stop sweeping);
//! - with the network off: `socket(2)` for every address family but local
//!   ones (UNIX, netlink, the kernel's crypto API) and for Internet sockets
//!   other than plain TCP (UDP, raw, MPTCP, SCTP), whose connect and bind
//!   Landlock does not see; TCP Fast Open (`MSG_FASTOPEN` on `sendto`,
//!   `sendmsg`, `sendmmsg`), which connects without `connect(2)`; and
//!   `io_uring_setup(2)` (ENOSYS: io_uring can make sockets without
//!   `socket(2)`; programs fall back to plain system calls).

use std::collections::BTreeMap;

use nix::libc;
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// Address families a command may still open sockets of.
const LOCAL_FAMILIES: [i32; 3] = [libc::AF_UNIX, libc::AF_NETLINK, libc::AF_ALG];
/// The largest address family number the filter refuses up to (and all
/// above it).
const LAST_FAMILY: i32 = 64;

/// `MSG_FASTOPEN` in a send call's flags.
const MSG_FASTOPEN: i64 = 0x2000_0000;

/// Installs the filters on this process (inherited by what it starts).
///
/// Errors: the architecture has no seccomp support in `seccompiler`, or
/// the kernel refuses a filter.
pub(crate) fn install(no_network: bool) -> Result<(), String> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| e.to_string())?;
    let mut filters = vec![(
        BTreeMap::from([(libc::SYS_prlimit64, vec![other_process()?])]),
        libc::EPERM,
    )];
    if no_network {
        let mut refused = BTreeMap::from([(libc::SYS_socket, socket_rules().map_err(text)?)]);
        for (call, flags) in [
            (libc::SYS_sendto, 3),
            (libc::SYS_sendmsg, 2),
            (libc::SYS_sendmmsg, 3),
        ] {
            refused.insert(call, vec![fast_open(flags)?]);
        }
        filters.push((refused, libc::EACCES));
        filters.push((
            BTreeMap::from([(libc::SYS_io_uring_setup, Vec::new())]),
            libc::ENOSYS,
        ));
    }
    for (rules, errno) in filters {
        let filter = SeccompFilter::new(
            rules,
            SeccompAction::Allow,
            SeccompAction::Errno(errno as u32),
            arch,
        )
        .map_err(text)?;
        let program = BpfProgram::try_from(filter).map_err(text)?;
        seccompiler::apply_filter(&program).map_err(text)?;
    }
    Ok(())
}

fn text(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// `prlimit64(pid, …)` with a pid other than 0 (this process).
fn other_process() -> Result<SeccompRule, String> {
    let pid =
        SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, 0).map_err(text)?;
    SeccompRule::new(vec![pid]).map_err(text)
}

/// A send call whose flags (argument `index`) hold `MSG_FASTOPEN`.
fn fast_open(index: u8) -> Result<SeccompRule, String> {
    let flag = SeccompCondition::new(
        index,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::MaskedEq(MSG_FASTOPEN as u64),
        MSG_FASTOPEN as u64,
    )
    .map_err(text)?;
    SeccompRule::new(vec![flag]).map_err(text)
}

/// The `socket(domain, type, protocol)` calls to refuse: any family but
/// the local ones and the two Internet ones; for AF_INET and AF_INET6 any
/// type but SOCK_STREAM, and SOCK_STREAM with a protocol other than 0 or
/// TCP.
fn socket_rules() -> seccompiler::Result<Vec<SeccompRule>> {
    let arg = |index: u8, op: SeccompCmpOp, value: i64| {
        SeccompCondition::new(index, SeccompCmpArgLen::Dword, op, value as u64)
    };
    let mut rules = Vec::new();
    let mut allowed: Vec<i32> = LOCAL_FAMILIES.to_vec();
    allowed.extend([libc::AF_INET, libc::AF_INET6]);
    allowed.sort_unstable();
    // Families between the allowed ones, as ranges.
    let mut from = 0;
    for &family in allowed.iter().chain(std::iter::once(&(LAST_FAMILY + 1))) {
        if family > from {
            rules.push(SeccompRule::new(vec![
                arg(0, SeccompCmpOp::Ge, i64::from(from))?,
                arg(0, SeccompCmpOp::Le, i64::from(family - 1))?,
            ])?);
        }
        from = family + 1;
    }
    rules.push(SeccompRule::new(vec![arg(
        0,
        SeccompCmpOp::Gt,
        i64::from(LAST_FAMILY),
    )?])?);
    for family in [libc::AF_INET, libc::AF_INET6] {
        let family = i64::from(family);
        for kind in 0..=15 {
            if kind == libc::SOCK_STREAM {
                continue;
            }
            rules.push(SeccompRule::new(vec![
                arg(0, SeccompCmpOp::Eq, family)?,
                arg(1, SeccompCmpOp::MaskedEq(0xf), i64::from(kind))?,
            ])?);
        }
        rules.push(SeccompRule::new(vec![
            arg(0, SeccompCmpOp::Eq, family)?,
            arg(2, SeccompCmpOp::Ge, i64::from(libc::IPPROTO_TCP + 1))?,
        ])?);
        rules.push(SeccompRule::new(vec![
            arg(0, SeccompCmpOp::Eq, family)?,
            arg(2, SeccompCmpOp::Ge, 1)?,
            arg(2, SeccompCmpOp::Le, i64::from(libc::IPPROTO_TCP - 1))?,
        ])?);
    }
    Ok(rules)
}
