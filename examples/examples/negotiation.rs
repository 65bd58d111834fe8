//! Runs four negotiations, one per way a FIPA dialogue can end, and prints the performatives.

use fsmc_examples::negotiation::Market;

fn main() {
    let mut market = Market::new();
    let runs = [
        ("tx-1", "apple", 2, 10, 30, false),
        ("tx-2", "pear", 1, 10, 30, false),
        ("tx-3", "apple", 1, 50, 30, false),
        ("tx-4", "apple", 1, 10, 30, true),
    ];
    for (id, good, qty, price, max, change) in runs {
        let before = market.log.len();
        match market.negotiate(id, good, qty, price, max, change) {
            Ok(end) => {
                let moves: Vec<String> = market.log[before..]
                    .iter()
                    .map(|(r, e)| format!("{}:{}", r.name(), e.name()))
                    .collect();
                println!("{id}: {:<16} {}", end.name(), moves.join(" → "));
            }
            Err(e) => eprintln!("{id}: error: {e}"),
        }
    }
    println!("buyer {:?}\nseller {:?}", market.buyer, market.seller);
}
