//! The model server's address: every form Ollama's own client accepts for
//! `OLLAMA_HOST` turned into one base URL, read exactly as the HTTP client
//! will read it.

use crate::error::{Error, Result};

/// Turns an address in any form Ollama's own client accepts into a base URL:
/// `host` → `http://host:11434`, `host:port` → `http://host:port`,
/// `http://host` → `http://host:80`, `https://host` → `https://host:443`, an
/// empty host → `127.0.0.1`. A path after the address is kept (for proxies).
pub(crate) fn normalize_host(text: &str) -> Result<String> {
    let text = text.trim();
    let (scheme, rest, default_port) = match text.split_once("://") {
        None => ("http", text, "11434"),
        Some(("http", rest)) => ("http", rest, "80"),
        Some(("https", rest)) => ("https", rest, "443"),
        Some((other, _)) => {
            return Err(Error::Usage(format!(
                "host `{text}` uses the scheme `{other}`; use `host:port`, `http://host:port` or `https://host:port`"
            )));
        }
    };
    let (hostport, path) = match rest.split_once('/') {
        Some((hp, p)) => (hp, p.trim_end_matches('/')),
        None => (rest, ""),
    };
    // `user:password@` is kept for the requests (basic auth).
    let (userinfo, hostport) = match hostport.rsplit_once('@') {
        Some((user, hp)) => (format!("{user}@"), hp),
        None => (String::new(), hostport),
    };
    let (host, port) = split_host_port(hostport);
    // A bare IPv6 address (`::1`) needs brackets in a URL.
    let bracketed;
    let host = if host.contains(':') && !host.starts_with('[') {
        bracketed = format!("[{host}]");
        bracketed.as_str()
    } else {
        host
    };
    let host = if host.is_empty() { "127.0.0.1" } else { host };
    let port = port.unwrap_or(default_port);
    if port.parse::<u16>().is_err() || host.contains(char::is_whitespace) {
        return Err(Error::Usage(format!(
            "host `{text}` is not an address; use `host`, `host:port` or `http://host:port`"
        )));
    }
    let path = if path.is_empty() {
        String::new()
    } else {
        format!("/{path}")
    };
    let url = format!("{scheme}://{userinfo}{host}:{port}{path}");
    // The HTTP client must read the same host as every check here: a URL
    // that parses to another host (`h\\@localhost`, `h#@localhost`) is
    // refused rather than guessed at.
    let parsed = reqwest::Url::parse(&url)
        .map_err(|e| Error::Usage(format!("host `{text}` is not a valid address ({e})")))?;
    let parsed_host = parsed.host_str().unwrap_or_default();
    if parsed_host.trim_matches(|c| c == '[' || c == ']')
        != host.trim_matches(|c| c == '[' || c == ']')
        || text.contains(['\\', '#', '?', ' '])
    {
        return Err(Error::Usage(format!(
            "host `{text}` is ambiguous (it reads as host `{parsed_host}`); write it as `http://host:port`"
        )));
    }
    Ok(url)
}

/// An OpenAI-compatible API root: an `http://` or `https://` URL with a
/// host, e.g. `http://127.0.0.1:8080/v1`.
///
/// Errors: anything else ([`Error::Usage`]).
pub(crate) fn normalize_base_url(text: &str) -> Result<String> {
    let text = text.trim();
    let rest = text
        .strip_prefix("http://")
        .or_else(|| text.strip_prefix("https://"));
    if rest.is_none_or(|r| r.trim_matches('/').is_empty()) {
        return Err(Error::Usage(format!(
            "base URL `{text}` is not an http(s) URL with a host; give the server's API root, e.g. `http://127.0.0.1:8080/v1`"
        )));
    }
    normalize_host(text).map_err(|e| {
        Error::Usage(format!(
            "base URL `{text}`: {e}; give the server's API root, e.g. `http://127.0.0.1:8080/v1`"
        ))
    })
}

/// A base URL for messages: any `user:password@` is left out.
pub(crate) fn display_host(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    format!("{scheme}://{host}{path}")
}

/// Splits `host:port`, `[v6]:port`, `[v6]` or `host`.
fn split_host_port(hostport: &str) -> (&str, Option<&str>) {
    if let Some((inner, after)) = hostport
        .strip_prefix('[')
        .and_then(|rest| rest.split_once(']'))
    {
        // Keep the brackets: a URL needs them around an IPv6 address.
        let end = inner.len() + 2;
        return (&hostport[..end], after.strip_prefix(':'));
    }
    match hostport.rsplit_once(':') {
        // A bare IPv6 address has several colons and no port.
        Some((h, p)) if !h.contains(':') => (h, Some(p)),
        _ => (hostport, None),
    }
}

/// Whether a normalised base URL points at this machine.
pub(crate) fn is_loopback(url: &str) -> bool {
    // The same URL parser as the HTTP client, so both see the same host.
    match reqwest::Url::parse(url)
        .ok()
        .and_then(|u| u.host().map(|h| h.to_owned()))
    {
        Some(url::Host::Domain(name)) => name == "localhost",
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn host_forms_follow_ollama() {
        for (input, want) in [
            ("localhost", "http://localhost:11434"),
            ("example.com:8080", "http://example.com:8080"),
            ("http://example.com", "http://example.com:80"),
            ("https://example.com", "https://example.com:443"),
            ("http://10.0.0.2:11434/", "http://10.0.0.2:11434"),
            ("0.0.0.0", "http://0.0.0.0:11434"),
            (":11500", "http://127.0.0.1:11500"),
            ("[::1]:11434", "http://[::1]:11434"),
            (
                "https://proxy.example/ollama/",
                "https://proxy.example:443/ollama",
            ),
        ] {
            assert_eq!(normalize_host(input).unwrap(), want, "{input}");
        }
        assert!(normalize_host("ftp://x").is_err());
        assert_eq!(display_host("http://u:secret@h:1/x"), "http://h:1/x");
        assert_eq!(display_host("http://h:1"), "http://h:1");
        assert!(normalize_host("host:notaport").is_err());
    }
}
