//! BM25F (Robertson and Zaragoza, "The Probabilistic Relevance Framework:
//! BM25 and Beyond", 2009): each field's term count is normalized by the
//! field's length against its average and weighted, the weighted counts
//! are summed into one pseudo count per term, and that count saturates
//! once (`k1`) before the term's rarity (`idf`) multiplies it.

use std::collections::HashMap;

use super::document::{Document, FIELDS, Field};

/// The weights of a ranking.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Weights {
    /// How much a word counts in each field, in [`Field`] order.
    pub field: [f64; FIELDS],
    /// How much a field's length discounts its counts (0 none, 1 fully).
    pub b: [f64; FIELDS],
    /// How fast repeats stop counting.
    pub k1: f64,
}

/// The weights `rank` uses. A word in a definition's name counts five
/// times one in its body, its container's name, parameters and docstring
/// in between; a long body is discounted, a name hardly is.
pub(crate) const WEIGHTS: Weights = Weights {
    field: [5.0, 2.0, 2.5, 2.0, 1.0],
    b: [0.3, 0.3, 0.5, 0.75, 0.75],
    k1: 1.2,
};

/// The score of each of `documents` for `query` (words with their
/// weights), in the documents' order; 0 for one that shares no word.
pub(crate) fn scores(
    documents: &[Document],
    query: &[(String, f64)],
    weights: &Weights,
) -> Vec<f64> {
    let n = documents.len() as f64;
    let mut average = [0.0; FIELDS];
    for doc in documents {
        for field in Field::ALL {
            average[field.index()] += f64::from(doc.field(field).length);
        }
    }
    for a in &mut average {
        *a = if n > 0.0 { (*a / n).max(1.0) } else { 1.0 };
    }
    let mut scores = vec![0.0; documents.len()];
    for ((_, query_weight), postings) in query.iter().zip(postings(documents, query)) {
        let df = postings.len() as f64;
        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        for (doc, counts) in postings {
            let lengths = documents[doc].fields.each_ref().map(|bag| bag.length);
            let mut count = 0.0;
            for i in 0..FIELDS {
                let norm = 1.0 - weights.b[i] + weights.b[i] * f64::from(lengths[i]) / average[i];
                count += weights.field[i] * f64::from(counts[i]) / norm;
            }
            if count > 0.0 {
                scores[doc] += query_weight * idf * count / (weights.k1 + count);
            }
        }
    }
    scores
}

/// For each word of `query`, the documents that hold it with its count in
/// each field: one pass over the documents' words, not one per word.
fn postings(documents: &[Document], query: &[(String, f64)]) -> Vec<Vec<(usize, [u32; FIELDS])>> {
    let wanted: HashMap<&str, usize> = query
        .iter()
        .enumerate()
        .map(|(i, (term, _))| (term.as_str(), i))
        .collect();
    let mut postings = vec![Vec::new(); query.len()];
    for (d, doc) in documents.iter().enumerate() {
        for (f, bag) in doc.fields.iter().enumerate() {
            for (term, &count) in &bag.counts {
                let Some(&q) = wanted.get(term.as_str()) else {
                    continue;
                };
                let list: &mut Vec<(usize, [u32; FIELDS])> = &mut postings[q];
                if list.last().is_none_or(|(last, _)| *last != d) {
                    list.push((d, [0; FIELDS]));
                }
                if let Some((_, counts)) = list.last_mut() {
                    counts[f] += count;
                }
            }
        }
    }
    postings
}
