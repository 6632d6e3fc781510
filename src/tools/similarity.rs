//! How alike two lines are, for the fuzzy stage of `edit_file`: the
//! Sørensen–Dice coefficient of their character bigrams (whitespace
//! normalised), exact ([`Bigrams`]) or approximate and fast ([`Signature`]).

/// The character bigrams of `text` with its whitespace normalised (runs
/// become one space, ends trimmed), without building the normalised text.
fn bigram_keys(text: &str) -> impl Iterator<Item = u64> + '_ {
    let chars = text
        .split_whitespace()
        .enumerate()
        .flat_map(|(n, word)| (n > 0).then_some(' ').into_iter().chain(word.chars()));
    chars
        .clone()
        .zip(chars.skip(1))
        .map(|(a, b)| (u64::from(a) << 32) | u64::from(b))
}

/// A 512-bit set of hashed bigrams: an approximate Dice in a few
/// instructions, to rank windows before exact scoring.
pub(crate) struct Signature {
    bits: [u64; 8],
    ones: u32,
}

impl Signature {
    /// The signature of `text`'s bigrams.
    pub(crate) fn of(text: &str) -> Self {
        let mut bits = [0u64; 8];
        for key in bigram_keys(text) {
            let h = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 55) as usize;
            bits[h / 64] |= 1 << (h % 64);
        }
        let ones = bits.iter().map(|b| b.count_ones()).sum();
        Signature { bits, ones }
    }

    /// Approximate Dice similarity, 0 to 1.
    pub(crate) fn dice(&self, other: &Signature) -> f64 {
        if self.ones == 0 || other.ones == 0 {
            return if self.ones == other.ones { 1.0 } else { 0.0 };
        }
        let shared: u32 = self
            .bits
            .iter()
            .zip(&other.bits)
            .map(|(a, b)| (a & b).count_ones())
            .sum();
        2.0 * f64::from(shared) / f64::from(self.ones + other.ones)
    }
}

/// The character bigrams of a line as sorted keys, for a Dice similarity.
/// Sorted vectors merge far faster than hash maps are probed, which keeps a
/// fuzzy scan of a 10,000-line file in a few milliseconds.
pub(crate) struct Bigrams {
    keys: Vec<u64>,
}

impl Bigrams {
    /// The bigrams of `text`.
    pub(crate) fn of(text: &str) -> Self {
        let mut keys: Vec<u64> = bigram_keys(text).collect();
        keys.sort_unstable();
        Bigrams { keys }
    }

    /// Sørensen–Dice coefficient of the two bigram multisets; two lines too
    /// short to have bigrams count as equal only when both have none.
    pub(crate) fn dice(&self, other: &Bigrams) -> f64 {
        let (a, b) = (&self.keys, &other.keys);
        if a.is_empty() || b.is_empty() {
            return if a.len() == b.len() { 1.0 } else { 0.0 };
        }
        let (mut i, mut j, mut shared) = (0, 0, 0usize);
        while i < a.len() && j < b.len() {
            match a[i].cmp(&b[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    shared += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        2.0 * shared as f64 / (a.len() + b.len()) as f64
    }
}
