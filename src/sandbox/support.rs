//! What the running kernel's Landlock can enforce, asked without confining
//! anything: a ruleset is created (a file descriptor, closed at once) with
//! the features `oc` needs as hard requirements.

use landlock::{ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr};

use crate::env_vars;

/// Which parts of the confinement the kernel supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Support {
    /// Filesystem rules (Landlock ABI 1, Linux 5.13).
    pub filesystem: bool,
    /// TCP connect and bind rules (Landlock ABI 4, Linux 6.7).
    pub network: bool,
}

impl Support {
    /// Asks the kernel. `OC_TEST_LANDLOCK` (`none` or `no-network`, for
    /// tests only) pretends the kernel lacks Landlock or its network rules.
    pub(crate) fn probe() -> Support {
        match std::env::var(env_vars::OC_TEST_LANDLOCK).as_deref() {
            Ok("none") => {
                return Support {
                    filesystem: false,
                    network: false,
                };
            }
            Ok("no-network") => {
                return Support {
                    filesystem: probe_filesystem(),
                    network: false,
                };
            }
            _ => {}
        }
        Support {
            filesystem: probe_filesystem(),
            network: probe_network(),
        }
    }
}

fn probe_filesystem() -> bool {
    Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(ABI::V1))
        .and_then(|ruleset| ruleset.create())
        .is_ok()
}

fn probe_network() -> bool {
    Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
        .and_then(|ruleset| ruleset.create())
        .is_ok()
}
