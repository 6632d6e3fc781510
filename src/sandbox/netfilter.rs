//! The network part Landlock leaves open, closed with a seccomp filter
//! (`seccompiler`): with the network off, `socket(2)` is refused
//! (EACCES) for every address family but local ones (UNIX, netlink, the
//! kernel's crypto API) and for Internet sockets other than plain TCP —
//! UDP, raw, MPTCP, SCTP — whose connect and bind Landlock does not see.
//! `io_uring_setup(2)` answers ENOSYS (io_uring can make sockets without
//! `socket(2)`; programs fall back to plain system calls).

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

/// Installs the filter on this process (inherited by what it starts).
///
/// Errors: the architecture has no seccomp support in `seccompiler`, or
/// the kernel refuses the filter.
pub fn refuse_network_sockets() -> Result<(), String> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| e.to_string())?;
    let socket_rules = socket_rules().map_err(|e| e.to_string())?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    rules.insert(libc::SYS_socket, socket_rules);
    let refuse = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EACCES as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    let mut io_uring: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    io_uring.insert(libc::SYS_io_uring_setup, Vec::new());
    let no_io_uring = SeccompFilter::new(
        io_uring,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    for filter in [refuse, no_io_uring] {
        let program = BpfProgram::try_from(filter).map_err(|e| e.to_string())?;
        seccompiler::apply_filter(&program).map_err(|e| e.to_string())?;
    }
    Ok(())
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
