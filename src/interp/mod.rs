//! Reference interpreter: runs a warp lane by lane, obviously correct, slow.
