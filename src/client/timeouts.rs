//! How long `oc` waits for the model server.

/// Network timeouts towards the model server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Timeouts {
    /// Opening the TCP connection (`connect_timeout_secs`, default 10 s).
    pub connect: std::time::Duration,
    /// From sending a chat request to its first streamed chunk
    /// (`first_byte_timeout_secs`, default 300 s: a cold model load on a
    /// small CPU takes minutes).
    pub first_byte: std::time::Duration,
    /// Between two chunks of a stream, and for `/api/show` and `/api/tags`
    /// (`idle_timeout_secs`, default 120 s).
    pub idle: std::time::Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: std::time::Duration::from_secs(10),
            first_byte: std::time::Duration::from_secs(300),
            idle: std::time::Duration::from_secs(120),
        }
    }
}
