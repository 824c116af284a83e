//! The kind of page a document holds ([`PageKind`]). First from what the page declares about
//! itself ([`page_kind`]): schema.org types in JSON-LD and microdata, its Open Graph type, and
//! the path of its URL (canonical or Open Graph). The rules were chosen on the WCXB
//! development pages, where they tell 98 of 112 forum threads, 83 of 113 product pages, 25 of
//! 113 collections and 37 of 162 service pages (11, 16, 9 and 20 pages of other kinds taken
//! for them). A page that declares nothing is told a kind from what the whole page shows
//! ([`tell_kind`], [`KindModel`] over [`PageEvidence`]), or stays [`PageKind::Other`],
//! decided as before kinds were told; the model also overrules a declared article or a home
//! page's service when it is sure of another kind.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::document::Analysis;
use super::page::page_evidence;
use super::url::kind_of_url;
use crate::block::{Block, PageEvidence, PageInfo, PageKind, SchemaTypes, PAGE_EVIDENCE_VALUES};

/// The kind of page `page` declares, in this order: a forum's types or posts marked up as
/// comments; Open Graph's `product.group` (a collection) or `product`, or a product with an
/// offer; an article's types; documentation's; a list's; a URL of a forum; Open Graph's
/// `article`; a URL of documentation, of a shop's collection, or of a site's home page (a
/// service: what the site offers, section by section).
pub fn page_kind(page: &PageInfo) -> PageKind {
    let schema = page.schema;
    let og = page.og_type.as_deref().unwrap_or("").trim();
    if schema.has(SchemaTypes::FORUM | SchemaTypes::COMMENT) {
        return PageKind::Forum;
    }
    if og.eq_ignore_ascii_case("product.group") {
        return PageKind::Collection;
    }
    if og.eq_ignore_ascii_case("product") || schema.product_on_sale() {
        return PageKind::Product;
    }
    if schema.has(SchemaTypes::ARTICLE) {
        return PageKind::Article;
    }
    if schema.has(SchemaTypes::TECH_ARTICLE) {
        return PageKind::Documentation;
    }
    if schema.has(SchemaTypes::LIST) {
        return PageKind::Listing;
    }
    // Forum software (XenForo, Discourse) calls a thread an article in Open Graph.
    let by_url = page.url().map_or(PageKind::Other, kind_of_url);
    if by_url == PageKind::Forum {
        return by_url;
    }
    if og.eq_ignore_ascii_case("article") {
        return PageKind::Article;
    }
    by_url
}

/// The kind of the page whose blocks are `blocks`: `declared` (what it declares,
/// [`page_kind`]) if it is a kind and `model` does not overrule it
/// ([`KindModel::declared_overruled_at`]), else the likeliest kind of `model` over what the
/// whole page shows ([`PageEvidence`]) if it is likely enough, else [`PageKind::Other`].
pub fn tell_kind(
    declared: PageKind,
    blocks: &[Block],
    page: &PageInfo,
    analysis: &Analysis,
    model: &KindModel,
) -> PageKind {
    match (declared, model.declared_overruled_at) {
        (PageKind::Other, _) => model.kind(&page_evidence(blocks, page, analysis)),
        (PageKind::Article | PageKind::Service, Some(sure)) => model
            .likeliest(&page_evidence(blocks, page, analysis), sure)
            .unwrap_or(declared),
        (declared, _) => declared,
    }
}

/// The page-kind model: a multinomial logistic regression over the standardised values of
/// [`PageEvidence`], learned on the WCXB development pages' seven kinds and the article sets'
/// news pages by `scripts/learn-page-kinds.py` (its cross-validated confusion matrix is in
/// GUIDE.md, "Every kind of page"). The file is JSON; one is embedded
/// (`model/page-kinds.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KindModel {
    /// The names of the evidence values, in order ([`PageEvidence::NAMES`]).
    pub evidence: Vec<String>,
    /// The kinds it tells ([`PageKind::name`]), one row of `weights` each.
    pub kinds: Vec<String>,
    /// Mean of every value over the training pages.
    pub mean: Vec<f32>,
    /// Standard deviation of every value over the training pages (1 where it was 0).
    pub scale: Vec<f32>,
    /// Weights over the standardised values, a row per kind.
    pub weights: Vec<Vec<f32>>,
    /// Log-odds of each kind at the mean page.
    pub bias: Vec<f32>,
    /// The likeliest kind is told only when its probability reaches this; else the page is
    /// [`PageKind::Other`].
    pub min_probability: f32,
    /// A page declared an article, or a service page for being a site's home page
    /// ([`page_kind`]), is told another kind when the model gives that kind at least this
    /// probability; `None`: never. These two mislead: many sites call every page an article,
    /// their home and section pages too, and a home page may be a blog's list of posts
    /// rather than what the site offers. The others (a forum's or a product's types, a URL
    /// under `docs/` or `collections/`) are kept.
    #[serde(default)]
    pub declared_overruled_at: Option<f32>,
    /// How it was made.
    pub provenance: String,
}

/// Why a page-kind model file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum KindModelError {
    /// It is not the JSON of a model.
    #[error("not a page-kind model: {0}")]
    Json(#[from] serde_json::Error),
    /// Its values do not fit this build.
    #[error("page-kind model does not fit this build: {0}")]
    Shape(String),
}

impl KindModel {
    /// The model embedded in the binary (`model/page-kinds.json`), read when first asked for.
    pub fn embedded() -> &'static KindModel {
        static EMBEDDED: OnceLock<KindModel> = OnceLock::new();
        EMBEDDED.get_or_init(|| {
            match KindModel::from_json(include_bytes!("../../model/page-kinds.json")) {
                Ok(model) => model,
                // Checked by a unit test; failing here is a build bug.
                Err(e) => panic!("embedded model/page-kinds.json is invalid: {e}"),
            }
        })
    }

    /// A model read from its JSON, checked against this build's evidence.
    pub fn from_json(bytes: &[u8]) -> Result<KindModel, KindModelError> {
        let model: KindModel = serde_json::from_slice(bytes)?;
        model.check().map_err(KindModelError::Shape)?;
        Ok(model)
    }

    /// Why the model does not fit this build, if it does not: evidence of other names, rows
    /// of other lengths, a kind this build does not know, a value not finite.
    pub fn check(&self) -> Result<(), String> {
        if self.evidence != PageEvidence::NAMES {
            return Err("it was learned on other page evidence".into());
        }
        if self.mean.len() != PAGE_EVIDENCE_VALUES || self.scale.len() != PAGE_EVIDENCE_VALUES {
            return Err(format!(
                "means and scales need {PAGE_EVIDENCE_VALUES} values"
            ));
        }
        if self.weights.len() != self.kinds.len() || self.bias.len() != self.kinds.len() {
            return Err("one row of weights and one bias per kind".into());
        }
        if let Some(name) = self.kinds.iter().find(|k| PageKind::of_name(k).is_none()) {
            return Err(format!("{name:?} is not a kind of page"));
        }
        let values = self
            .weights
            .iter()
            .flatten()
            .chain(&self.mean)
            .chain(&self.bias);
        if self
            .weights
            .iter()
            .any(|row| row.len() != PAGE_EVIDENCE_VALUES)
            || values.chain(&self.scale).any(|v| !v.is_finite())
            || self.scale.iter().any(|&s| s <= 0.0)
            || !self.min_probability.is_finite()
            || self.declared_overruled_at.is_some_and(|p| !p.is_finite())
        {
            return Err("a value is missing, not finite, or a scale not positive".into());
        }
        Ok(())
    }

    /// The probability of each of [`KindModel::kinds`] for a page showing `evidence`.
    pub fn probabilities(&self, evidence: &PageEvidence) -> Vec<f32> {
        let x = evidence.values();
        let z: Vec<f32> = self
            .weights
            .iter()
            .zip(&self.bias)
            .map(|(row, &bias)| {
                let dot: f32 = (0..PAGE_EVIDENCE_VALUES)
                    .map(|i| row[i] * (x[i] - self.mean[i]) / self.scale[i])
                    .sum();
                bias + dot
            })
            .collect();
        let top = z.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let exp: Vec<f32> = z.iter().map(|&v| (v - top).exp()).collect();
        let sum: f32 = exp.iter().sum();
        exp.iter().map(|&e| e / sum).collect()
    }

    /// The likeliest kind for a page showing `evidence`, if its probability reaches
    /// [`KindModel::min_probability`], else [`PageKind::Other`].
    pub fn kind(&self, evidence: &PageEvidence) -> PageKind {
        self.likeliest(evidence, self.min_probability)
            .unwrap_or(PageKind::Other)
    }

    /// The likeliest kind for a page showing `evidence`, if its probability reaches `least`.
    fn likeliest(&self, evidence: &PageEvidence, least: f32) -> Option<PageKind> {
        let p = self.probabilities(evidence);
        p.iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .filter(|(_, &best)| best >= least)
            .and_then(|(i, _)| PageKind::of_name(&self.kinds[i]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(schema: u8, og_type: Option<&str>, url: Option<&str>) -> PageInfo {
        PageInfo {
            schema: SchemaTypes(schema),
            og_type: og_type.map(str::to_string),
            canonical_url: url.map(str::to_string),
            ..PageInfo::default()
        }
    }

    #[test]
    fn declared_types_tell_the_kind_in_order() {
        assert_eq!(page_kind(&PageInfo::default()), PageKind::Other);
        let forum = SchemaTypes::FORUM | SchemaTypes::ARTICLE;
        assert_eq!(
            page_kind(&page(forum, Some("article"), None)),
            PageKind::Forum
        );
        assert_eq!(
            page_kind(&page(SchemaTypes::COMMENT, None, None)),
            PageKind::Forum
        );
        assert_eq!(
            page_kind(&page(0, Some("product.group"), None)),
            PageKind::Collection
        );
        assert_eq!(
            page_kind(&page(0, Some(" Product"), None)),
            PageKind::Product
        );
        let offer = SchemaTypes::PRODUCT | SchemaTypes::OFFER | SchemaTypes::ARTICLE;
        assert_eq!(page_kind(&page(offer, None, None)), PageKind::Product);
        // A product named in passing (a review's subject) does not make a product page.
        let review = SchemaTypes::PRODUCT | SchemaTypes::ARTICLE;
        assert_eq!(page_kind(&page(review, None, None)), PageKind::Article);
        assert_eq!(
            page_kind(&page(SchemaTypes::TECH_ARTICLE, None, None)),
            PageKind::Documentation
        );
        assert_eq!(
            page_kind(&page(SchemaTypes::LIST, Some("article"), None)),
            PageKind::Listing
        );
        assert_eq!(
            page_kind(&page(0, Some("article"), None)),
            PageKind::Article
        );
        assert_eq!(page_kind(&page(0, Some("website"), None)), PageKind::Other);
    }

    #[test]
    fn urls_tell_forums_documentation_collections_and_home_pages() {
        let kind = |url| page_kind(&page(0, None, Some(url)));
        assert_eq!(
            kind("https://community.openai.com/t/some-thread/12345"),
            PageKind::Forum
        );
        assert_eq!(
            kind("https://example.org/forum/viewtopic.php?t=9"),
            PageKind::Forum
        );
        assert_eq!(
            kind("https://example.org/viewtopic.php?t=9"),
            PageKind::Forum
        );
        assert_eq!(
            kind("https://www.reddit.com/r/rust/comments/x/y/"),
            PageKind::Forum
        );
        assert_eq!(kind("https://forums.example.com/"), PageKind::Forum);
        assert_eq!(kind("https://docs.rs/lol_html"), PageKind::Documentation);
        assert_eq!(
            kind("https://example.org/docs/intro"),
            PageKind::Documentation
        );
        // A last segment is a page's own name, not a section.
        assert_eq!(kind("https://example.org/blog/the-forum"), PageKind::Other);
        assert_eq!(kind("https://example.org/docs"), PageKind::Other);
        assert_eq!(
            kind("https://shop.example/collections/socks/wool"),
            PageKind::Collection
        );
        assert_eq!(kind("https://example.org/"), PageKind::Service);
        assert_eq!(kind("https://example.org"), PageKind::Service);
        assert_eq!(kind("https://example.org/category"), PageKind::Other);
        assert_eq!(kind("not a url"), PageKind::Other);
        assert_eq!(kind(""), PageKind::Other);
    }

    #[test]
    fn the_embedded_page_kind_model_fits_and_damaged_ones_are_refused() {
        let model = KindModel::embedded();
        assert_eq!(model.kinds.len(), model.weights.len());
        let p = model.probabilities(&PageEvidence::default());
        assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-4, "{p:?}");
        let json = serde_json::to_vec(model).unwrap();
        assert_eq!(KindModel::from_json(&json).unwrap(), *model);
        let mut bad = model.clone();
        bad.scale[0] = 0.0;
        assert!(bad.check().is_err());
        let mut bad = model.clone();
        bad.kinds[0] = "poem".into();
        assert!(bad.check().unwrap_err().contains("poem"));
        let mut bad = model.clone();
        bad.evidence.pop();
        assert!(KindModel::from_json(&serde_json::to_vec(&bad).unwrap()).is_err());
        assert!(KindModel::from_json(b"{").is_err());
    }

    #[test]
    fn a_page_that_declares_its_kind_keeps_it_and_one_that_does_not_is_told() {
        let mut model = KindModel::embedded().clone();
        // A model sure of "listing" whatever the page shows.
        for row in &mut model.weights {
            row.iter_mut().for_each(|w| *w = 0.0);
        }
        model.bias = model
            .kinds
            .iter()
            .map(|k| if k == "listing" { 9.0 } else { 0.0 })
            .collect();
        let analysis = Analysis::of(&[]);
        let told = |page: &PageInfo, model: &KindModel| {
            tell_kind(page_kind(page), &[], page, &analysis, model)
        };
        let article = page(0, Some("article"), None);
        let home = page(0, None, Some("https://example.org/"));
        let forum = page(SchemaTypes::FORUM, None, None);
        assert_eq!(told(&PageInfo::default(), &model), PageKind::Listing);
        // A declared article and a home page are told what the model is sure of; a forum's
        // types are kept.
        model.declared_overruled_at = Some(0.9);
        assert_eq!(told(&article, &model), PageKind::Listing);
        assert_eq!(told(&home, &model), PageKind::Listing);
        assert_eq!(told(&forum, &model), PageKind::Forum);
        // Not sure enough, or never: what the page declares.
        model.declared_overruled_at = Some(1.5);
        assert_eq!(told(&article, &model), PageKind::Article);
        model.declared_overruled_at = None;
        assert_eq!(told(&article, &model), PageKind::Article);
        assert_eq!(told(&home, &model), PageKind::Service);
        // Not sure enough: no kind.
        model.min_probability = 1.5;
        assert_eq!(
            tell_kind(
                PageKind::Other,
                &[],
                &PageInfo::default(),
                &analysis,
                &model
            ),
            PageKind::Other
        );
    }
}
