//! Images attached to a prompt (`--image`): read, checked, turned upright
//! by their EXIF orientation, shrunk so the longest side is at most
//! `--image-max-side` pixels, and encoded as Ollama's `images` entries
//! (base64, no `data:` prefix). Sessions and fine-tuning records keep them
//! by content hash as files in `OC_HOME/images/` (see [`ImageStore`]), so a
//! session file names an image instead of holding it at every save.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use image::codecs::jpeg::JpegEncoder;
use image::imageops::FilterType;
use image::metadata::Orientation;
use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader};
use sha2::{Digest, Sha256};

use crate::client::Message;
use crate::error::{Error, Result};
use crate::fsutil;

/// Largest image file accepted (bytes).
pub(crate) const MAX_IMAGE_BYTES: u64 = 20 * 1024 * 1024;
/// Default `--image-max-side` (pixels).
pub(crate) const DEFAULT_MAX_SIDE: u32 = 1024;
/// How a stored image is named in sessions and records:
/// `images/<sha256 hex>.<png|jpg>`, relative to `OC_HOME`.
const REF_PREFIX: &str = "images/";

/// Reads the image at `path` and makes it an Ollama `images` entry: a
/// PNG or JPEG without orientation to apply and within `max_side` is sent
/// as it is; anything else is decoded (a GIF's first frame), turned
/// upright, shrunk and encoded again (JPEG stays JPEG, the others become
/// PNG).
///
/// Errors (exit 2), each naming the file: missing or unreadable, larger
/// than 20 MB, not a PNG, JPEG, WebP or GIF image, cannot be decoded.
pub(crate) fn load(path: &Path, max_side: u32) -> Result<String> {
    let shown = path.display();
    let bytes = read_bounded(path)?;
    let mut reader = ImageReader::new(Cursor::new(&bytes))
        .with_guessed_format()
        .map_err(|e| Error::Usage(format!("cannot read the image `{shown}`: {e}")))?;
    let format = reader
        .format()
        .filter(|f| {
            matches!(
                f,
                ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::WebP | ImageFormat::Gif
            )
        })
        .ok_or_else(|| {
            Error::Usage(format!(
                "`{shown}` is not a PNG, JPEG, WebP or GIF image; `--image` takes those"
            ))
        })?;
    reader.limits(pixel_limits());
    let undecodable = |e: image::ImageError| {
        Error::Usage(format!(
            "the image `{shown}` looks like {} but cannot be decoded: {e}",
            format_name(format)
        ))
    };
    let mut decoder = reader.into_decoder().map_err(undecodable)?;
    let orientation = decoder.orientation().unwrap_or(Orientation::NoTransforms);
    let (width, height) = decoder.dimensions();
    let as_is = matches!(format, ImageFormat::Png | ImageFormat::Jpeg)
        && orientation == Orientation::NoTransforms
        && width.max(height) <= max_side;
    let mut image = DynamicImage::from_decoder(decoder).map_err(undecodable)?;
    if as_is {
        return Ok(BASE64.encode(&bytes));
    }
    image.apply_orientation(orientation);
    if image.width().max(image.height()) > max_side {
        image = image.resize(max_side, max_side, FilterType::Triangle);
    }
    let encoded = encode(&image, format == ImageFormat::Jpeg)
        .map_err(|e| Error::Usage(format!("cannot encode the image `{shown}` again: {e}")))?;
    Ok(BASE64.encode(encoded))
}

/// The bytes of the regular file at `path`, at most [`MAX_IMAGE_BYTES`]
/// (read with that bound, so a device or a pipe is never read whole).
fn read_bounded(path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let shown = path.display();
    let unreadable = |e: std::io::Error| {
        Error::Usage(format!(
            "cannot read the image `{shown}`: {e}; check the path given to `--image` and that you may read it"
        ))
    };
    let meta = std::fs::metadata(path).map_err(unreadable)?;
    if !meta.is_file() {
        return Err(Error::Usage(format!(
            "`{shown}` is not a regular file (a directory, device or pipe); `--image` takes an image file"
        )));
    }
    let too_large = |size: u64| {
        Error::Usage(format!(
            "the image `{shown}` is {:.1} MB; images may be at most 20 MB (shrink it first)",
            size as f64 / 1e6
        ))
    };
    if meta.len() > MAX_IMAGE_BYTES {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::new();
    let file = std::fs::File::open(path).map_err(unreadable)?;
    (file.take(MAX_IMAGE_BYTES + 1))
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > MAX_IMAGE_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    if bytes.is_empty() {
        return Err(Error::Usage(format!("the image `{shown}` is empty")));
    }
    Ok(bytes)
}

/// Decoding limits: at most 16,384 pixels a side and 512 MB of pixels, so
/// a small file that claims huge dimensions is refused, not decoded.
fn pixel_limits() -> image::Limits {
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(16_384);
    limits.max_image_height = Some(16_384);
    limits.max_alloc = Some(512 * 1024 * 1024);
    limits
}

fn format_name(format: ImageFormat) -> &'static str {
    match format {
        ImageFormat::Png => "a PNG",
        ImageFormat::Jpeg => "a JPEG",
        ImageFormat::WebP => "a WebP",
        _ => "a GIF",
    }
}

/// `image` as JPEG (quality 90) or PNG bytes.
fn encode(image: &DynamicImage, jpeg: bool) -> image::ImageResult<Vec<u8>> {
    let mut out = Vec::new();
    if jpeg {
        JpegEncoder::new_with_quality(&mut out, 90).encode_image(&image.to_rgb8())?;
    } else {
        image.write_to(&mut Cursor::new(&mut out), ImageFormat::Png)?;
    }
    Ok(out)
}

/// The file extension for an image's bytes (PNG or JPEG, as [`load`] makes).
fn extension(bytes: &[u8]) -> &'static str {
    if bytes.starts_with(&[0xFF, 0xD8]) {
        "jpg"
    } else {
        "png"
    }
}

/// Images kept by content hash under `OC_HOME/images/`.
#[derive(Debug, Clone)]
pub(crate) struct ImageStore {
    home: PathBuf,
}

impl ImageStore {
    /// The store of `home` (`OC_HOME`); nothing is created until a put.
    pub(crate) fn new(home: &Path) -> Self {
        ImageStore {
            home: home.to_path_buf(),
        }
    }

    /// Stores one `images` entry (base64) as `images/<sha256>.<ext>`
    /// (once; an existing file is kept) and returns that name.
    ///
    /// Errors: the entry is not base64; the file cannot be written.
    pub(crate) fn put(&self, base64: &str) -> Result<String> {
        let bytes = BASE64
            .decode(base64)
            .map_err(|e| Error::Usage(format!("an attached image is not valid base64: {e}")))?;
        let name = format!(
            "{REF_PREFIX}{:x}.{}",
            Sha256::digest(&bytes),
            extension(&bytes)
        );
        let path = self.home.join(&name);
        if !path.exists() {
            let dir = self.home.join(REF_PREFIX);
            fsutil::private_dir(&dir)
                .map_err(|e| Error::io(format!("cannot create `{}`", dir.display()), e))?;
            fsutil::write_atomic(&path, &bytes, 0o600)
                .map_err(|e| Error::io(format!("cannot write `{}`", path.display()), e))?;
        }
        Ok(name)
    }

    /// The path of a stored image named `name` (from [`Self::put`]).
    ///
    /// Errors: `name` is not such a name (nothing outside the store is
    /// ever read).
    pub(crate) fn path(&self, name: &str) -> Result<PathBuf> {
        let valid = name.strip_prefix(REF_PREFIX).is_some_and(|file| {
            let (hash, ext) = file.split_once('.').unwrap_or((file, ""));
            hash.len() == 64
                && hash.bytes().all(|b| b.is_ascii_hexdigit())
                && matches!(ext, "png" | "jpg")
        });
        if !valid {
            return Err(Error::Usage(format!(
                "`{name}` is not the name of a stored image (`images/<sha256>.png` or `.jpg`)"
            )));
        }
        Ok(self.home.join(name))
    }

    /// The base64 of the stored image `name`.
    ///
    /// Errors: an invalid name; the file is missing (the images folder was
    /// cleaned) or unreadable.
    pub(crate) fn get(&self, name: &str) -> Result<String> {
        let path = self.path(name)?;
        let bytes = std::fs::read(&path).map_err(|e| {
            Error::Usage(format!(
                "cannot read the stored image `{}` that this session sends again: {e}; put the image back there, or start a new session",
                path.display()
            ))
        })?;
        Ok(BASE64.encode(bytes))
    }

    /// Replaces every base64 image of `messages` by its stored name (see
    /// [`Self::put`]). Errors: as [`Self::put`].
    pub(crate) fn name_all<'m>(
        &self,
        messages: impl Iterator<Item = &'m mut Message>,
    ) -> Result<()> {
        for message in messages {
            for image in &mut message.images {
                if self.path(image).is_err() {
                    *image = self.put(image)?;
                }
            }
        }
        Ok(())
    }

    /// Replaces every stored name in `messages` by the image's base64
    /// (see [`Self::get`]). Errors: as [`Self::get`].
    pub(crate) fn load_all<'m>(
        &self,
        messages: impl Iterator<Item = &'m mut Message>,
    ) -> Result<()> {
        for message in messages {
            for image in &mut message.images {
                *image = self.get(image)?;
            }
        }
        Ok(())
    }

    /// The media type of the stored image `name` (`image/png` or `image/jpeg`).
    pub(crate) fn media_type(name: &str) -> &'static str {
        if name.ends_with(".jpg") {
            "image/jpeg"
        } else {
            "image/png"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{ImageEncoder, RgbImage};

    fn png(width: u32, height: u32) -> Vec<u8> {
        let image = DynamicImage::ImageRgb8(RgbImage::from_fn(width, height, |x, _| {
            image::Rgb([(x % 256) as u8, 0, 0])
        }));
        encode(&image, false).unwrap()
    }

    fn decoded(base64: &str) -> DynamicImage {
        let bytes = BASE64.decode(base64).unwrap();
        image::load_from_memory(&bytes).unwrap()
    }

    #[test]
    fn a_small_png_goes_as_it_is_and_a_large_one_is_shrunk() {
        let dir = tempfile::tempdir().unwrap();
        let small = dir.path().join("small.png");
        std::fs::write(&small, png(40, 20)).unwrap();
        let sent = load(&small, 1024).unwrap();
        assert_eq!(BASE64.decode(&sent).unwrap(), png(40, 20));
        let large = dir.path().join("large.png");
        std::fs::write(&large, png(3000, 1500)).unwrap();
        let image = decoded(&load(&large, 1024).unwrap());
        assert_eq!((image.width(), image.height()), (1024, 512));
    }

    #[test]
    fn exif_orientation_is_applied() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("turned.jpg");
        let mut bytes = Vec::new();
        let mut encoder = JpegEncoder::new(&mut bytes);
        // A little-endian EXIF block with one entry: Orientation = 6 (90° clockwise).
        let mut exif = b"II\x2a\0\x08\0\0\0\x01\0\x12\x01\x03\0\x01\0\0\0".to_vec();
        exif.extend_from_slice(&[6, 0, 0, 0, 0, 0, 0, 0]);
        encoder.set_exif_metadata(exif).unwrap();
        let pixels = vec![128u8; 40 * 20 * 3];
        encoder
            .write_image(&pixels, 40, 20, image::ExtendedColorType::Rgb8)
            .unwrap();
        std::fs::write(&path, bytes).unwrap();
        let image = decoded(&load(&path, 1024).unwrap());
        assert_eq!((image.width(), image.height()), (20, 40), "upright");
    }

    #[test]
    fn stored_images_are_named_by_hash_and_nothing_else_is_read() {
        let home = tempfile::tempdir().unwrap();
        let store = ImageStore::new(home.path());
        let base64 = BASE64.encode(png(4, 4));
        let name = store.put(&base64).unwrap();
        assert!(
            name.starts_with("images/") && name.ends_with(".png"),
            "{name}"
        );
        assert_eq!(store.put(&base64).unwrap(), name, "stored once");
        assert_eq!(store.get(&name).unwrap(), base64);
        assert!(store.get("images/../../etc/passwd").is_err());
        assert!(store.get("/etc/passwd").is_err());
    }
}
