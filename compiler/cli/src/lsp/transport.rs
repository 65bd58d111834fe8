//! The wire: JSON-RPC messages framed by `Content-Length` headers, as the protocol sends them over standard
//! input and output.
//!
//! lsp-server's own stdio transport stops the server at the first frame it cannot read (and allocates whatever
//! length a header claims); an editor, or anything else writing to the server, must not be able to stop it
//! that way. This reader bounds every header line and every body, skips what it cannot use, and hands the
//! server a [`Frame`] saying what was wrong, which the server answers with the JSON-RPC error for it.

use lsp_server::Message;
use std::io::{self, BufRead, Read, Write};

/// The longest header line read; a longer one is skipped.
const MAX_HEADER_LINE: usize = 8 * 1024;

/// The largest body read. A document is at most the loader's file limit, and escaping it as a JSON string at
/// most doubles it in practice (every `"` and `\`); a larger body is skipped unread and answered with an error.
pub const MAX_BODY: usize = 2 * fsmc_driver::loader::MAX_FILE_SIZE as usize + 1024 * 1024;

/// What one frame held.
#[derive(Debug)]
pub enum Frame {
    Message(Message),
    /// Not JSON (or not UTF-8, or too large): answered with a parse error.
    Unparsable(String),
    /// JSON, but not a request, response or notification the protocol knows (a non-integer id, no method…):
    /// answered with an invalid-request error, for the id when there is one.
    Invalid {
        id: Option<serde_json::Value>,
        message: String,
    },
}

/// Reads the next frame; `None` at the end of the input.
pub fn read(r: &mut impl BufRead) -> io::Result<Option<Frame>> {
    let mut length: Option<usize> = None;
    let mut bad_header = None;
    let mut saw_header = false;
    loop {
        let Some(line) = read_line(r)? else {
            return Ok(None);
        };
        let line = resynchronised(line.trim_end_matches(['\r', '\n']));
        if line.is_empty() {
            // Blank lines between frames (a stray CR LF) are not a frame.
            if saw_header {
                break;
            }
            continue;
        }
        saw_header = true;
        match line.split_once(':') {
            Some((name, value)) if name.trim().eq_ignore_ascii_case("content-length") => {
                match value.trim().parse::<usize>() {
                    Ok(n) => length = Some(n),
                    Err(_) => bad_header = Some(format!("bad Content-Length `{}`", value.trim())),
                }
            }
            // Content-Type and any other header: nothing to do.
            Some(_) => {}
            None => bad_header = Some("a header line without `:`".to_string()),
        }
    }
    let Some(length) = length else {
        return Ok(Some(Frame::Unparsable(
            bad_header.unwrap_or_else(|| "no Content-Length header".to_string()),
        )));
    };
    if length > MAX_BODY {
        io::copy(&mut r.take(length as u64), &mut io::sink())?;
        return Ok(Some(Frame::Unparsable(format!(
            "a message of {length} bytes is larger than the {MAX_BODY} this server reads"
        ))));
    }
    let mut body = Vec::new();
    r.take(length as u64).read_to_end(&mut body)?;
    if body.len() < length {
        // The input ended inside the body.
        return Ok(None);
    }
    Ok(Some(parse(&body)))
}

/// A header line, from its `Content-Length` header on when something comes before it. A frame whose
/// `Content-Length` was too short leaves the rest of its body in front of the next frame's header, on the same
/// line: reading from the header on resynchronises with the sender instead of reading every later frame off by
/// that many bytes.
fn resynchronised(line: &str) -> &str {
    const HEADER: &str = "content-length:";
    // ASCII lowercasing keeps every byte offset, so an offset in the copy is one in `line`.
    match line.to_ascii_lowercase().rfind(HEADER) {
        Some(at) if at > 0 => &line[at..],
        _ => line,
    }
}

/// One header line, at most [`MAX_HEADER_LINE`] bytes kept (the rest of a longer one is read and dropped).
fn read_line(r: &mut impl BufRead) -> io::Result<Option<String>> {
    let mut line = Vec::new();
    let mut any = false;
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok(any.then(|| String::from_utf8_lossy(&line).into_owned()));
        }
        any = true;
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..=i], true),
            None => (buf, false),
        };
        let room = MAX_HEADER_LINE.saturating_sub(line.len());
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = chunk.len();
        r.consume(used);
        if done {
            return Ok(Some(String::from_utf8_lossy(&line).into_owned()));
        }
    }
}

/// A body as a message, or what is wrong with it.
pub fn parse(body: &[u8]) -> Frame {
    let value: serde_json::Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => return Frame::Unparsable(format!("not JSON: {e}")),
    };
    let id = value.get("id").cloned().filter(|id| !id.is_null());
    match serde_json::from_value::<Message>(value) {
        // A request whose id is not one the protocol allows (an integer beyond 32 bits) reads as a notification:
        // it must be answered, with an error.
        Ok(Message::Notification(_)) if id.is_some() => Frame::Invalid {
            id,
            message: "a request id must be a string or a 32-bit integer".to_string(),
        },
        Ok(m) => Frame::Message(m),
        Err(e) => Frame::Invalid {
            id: id.filter(|id| id.is_number() || id.is_string()),
            message: format!("not a JSON-RPC request, response or notification: {e}"),
        },
    }
}

/// Writes a message with its header.
pub fn write(w: &mut impl Write, message: &serde_json::Value) -> io::Result<()> {
    let text = message.to_string();
    write!(w, "Content-Length: {}\r\n\r\n{text}", text.len())?;
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8]) -> Vec<String> {
        let mut r = io::BufReader::new(input);
        let mut out = Vec::new();
        while let Some(f) = read(&mut r).unwrap() {
            out.push(match f {
                Frame::Message(m) => format!("message {}", serde_json::to_string(&m).unwrap()),
                Frame::Unparsable(e) => format!("unparsable {e}"),
                Frame::Invalid { id, .. } => format!("invalid {id:?}"),
            });
        }
        out
    }

    #[test]
    fn reads_frames_and_survives_bad_ones() {
        let ok = r#"{"jsonrpc":"2.0","method":"exit"}"#;
        let input = format!(
            "Content-Length: {}\r\n\r\n{ok}\r\nContent-Length: 3\r\n\r\n{{x]Content-Length: 26\r\n\r\n{{\"jsonrpc\":\"2.0\",\"id\":1.5}}\
             content-length: {}\r\nContent-Type: x\r\n\r\n{ok}Content-Length: 999999999999\r\n\r\nxyz",
            ok.len(),
            ok.len()
        );
        let got = frames(input.as_bytes());
        assert_eq!(got.len(), 5, "{got:?}");
        assert!(got[0].starts_with("message"), "{got:?}");
        assert!(got[1].starts_with("unparsable not JSON"), "{got:?}");
        assert_eq!(got[2], "invalid Some(Number(1.5))");
        assert!(got[3].starts_with("message"), "{got:?}");
        assert!(got[4].contains("larger than"), "{got:?}");
    }

    #[test]
    fn a_length_too_short_resynchronises_on_the_next_header() {
        let request = r#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#;
        let exit = r#"{"jsonrpc":"2.0","method":"exit"}"#;
        let input = format!(
            "Content-Length: {}\r\n\r\n{request}Content-Length: {}\r\n\r\n{request}Content-Length: {}\r\n\r\n{exit}",
            request.len() - 7,
            request.len(),
            exit.len()
        );
        let got = frames(input.as_bytes());
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(got[0].starts_with("unparsable not JSON"), "{got:?}");
        assert!(got[1].contains("shutdown"), "{got:?}");
        assert!(got[2].contains("exit"), "{got:?}");
    }

    #[test]
    fn a_header_without_length_is_reported_and_skipped() {
        let got = frames(b"Foo: bar\r\n\r\nContent-Length: x\r\n\r\n");
        assert_eq!(
            got,
            [
                "unparsable no Content-Length header",
                "unparsable bad Content-Length `x`"
            ]
        );
    }
}
