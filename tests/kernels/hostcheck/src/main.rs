fn main() {
    eprintln!("hostcheck: no CLI");
    std::process::exit(2);
}
