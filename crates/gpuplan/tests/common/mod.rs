//! A `gpuplan serve` child process on a free loopback port, for the API and browser tests.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};

/// Price ages depend on today: pin it for the server and the CLI alike.
pub const TODAY: &str = "2026-12-03";

pub struct Server {
    pub child: Child,
    pub base: String,
}

impl Server {
    pub fn start() -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gpuplan"))
            .args(["serve", "--bind", "127.0.0.1:0", "--no-user-catalog"])
            .env("GPUPLAN_TODAY", TODAY)
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("start gpuplan serve");
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        err.read_line(&mut line).unwrap();
        let base = line
            .split("listening on ")
            .nth(1)
            .and_then(|s| s.split('/').nth(2))
            .map(|hostport| format!("http://{hostport}"))
            .unwrap_or_else(|| panic!("no address in the start-up line: {line}"));
        assert!(line.contains("no authentication"), "{line}");
        // Keep draining stderr so the server never blocks on a full pipe.
        std::thread::spawn(move || {
            let mut sink = String::new();
            let _ = err.read_to_string(&mut sink);
        });
        Server { child, base }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
