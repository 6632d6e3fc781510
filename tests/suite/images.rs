//! `--image`: checked, upright, shrunk, sent as Ollama `images` to a
//! vision model only, kept by hash in `OC_HOME/images/`, exported.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::Value;

use crate::common::{FakeOllama, Reply, TestEnv};

const VISION: &str = "vision:2b";

fn image_fixture(name: &str) -> String {
    format!("{}/fixtures/images/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn vision_server(replies: Vec<Reply>) -> FakeOllama {
    FakeOllama::start(replies).with_model(VISION, &["completion", "vision"], 8_192)
}

fn stderr_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stderr).to_string()
}

/// The images of the first user message of the first chat request.
fn sent_images(server: &FakeOllama) -> Vec<String> {
    let request = &server.chat_requests()[0];
    let user = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .unwrap();
    serde_json::from_value(user["images"].clone()).unwrap()
}

fn size_of(base64: &str) -> (u32, u32) {
    let image = image::load_from_memory(&BASE64.decode(base64).unwrap()).unwrap();
    (image.width(), image.height())
}

#[test]
fn an_image_goes_with_the_prompt_and_is_kept_by_hash() {
    let env = TestEnv::new();
    let server = vision_server(vec![Reply::answer("A red box and an arrow.")]);
    env.oc(&server)
        .args(["run", "-m", VISION, "--image"])
        .arg(image_fixture("diagram.png"))
        .arg("what does the diagram show?")
        .assert()
        .success();
    let sent = sent_images(&server);
    let original = std::fs::read(image_fixture("diagram.png")).unwrap();
    assert_eq!(
        sent,
        [BASE64.encode(&original)],
        "a small PNG goes as it is"
    );

    let session = env.session();
    let user = session["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .unwrap()
        .clone();
    let name = user["images"][0].as_str().unwrap().to_string();
    assert!(
        name.starts_with("images/") && name.ends_with(".png"),
        "{name}"
    );
    assert_eq!(
        std::fs::read(env.home.path().join(&name)).unwrap(),
        original
    );
    let record = &env.finetune()[0];
    let in_record = record["messages"].to_string();
    assert!(
        in_record.contains(&name) && !in_record.contains(&sent[0]),
        "a name, not the data"
    );

    let id = session["id"].as_str().unwrap().to_string();
    let shown = env
        .oc(&server)
        .args(["sessions", "show", &id])
        .assert()
        .success();
    assert!(
        String::from_utf8_lossy(&shown.get_output().stdout).contains(&format!("[image {name}]"))
    );
}

#[test]
fn exports_carry_the_images_in_each_formats_way() {
    let env = TestEnv::new();
    let server = vision_server(vec![Reply::answer("A diagram.")]);
    env.oc(&server)
        .args(["run", "-m", VISION, "--image"])
        .arg(image_fixture("diagram.png"))
        .arg("describe it")
        .assert()
        .success();
    let export = |format: &str| -> Value {
        let out = env
            .oc(&server)
            .args(["export-ft", "--format", format])
            .assert()
            .success();
        serde_json::from_slice(&out.get_output().stdout).unwrap()
    };
    let data = BASE64.encode(std::fs::read(image_fixture("diagram.png")).unwrap());

    let openai = export("openai");
    let parts = &openai["messages"][1]["content"];
    assert_eq!(parts[0]["type"], "text");
    assert_eq!(parts[0]["text"], "describe it");
    assert_eq!(parts[1]["type"], "image_url");
    assert_eq!(
        parts[1]["image_url"]["url"],
        format!("data:image/png;base64,{data}")
    );

    let hf = export("hf");
    assert_eq!(hf["messages"][1]["content"][0]["type"], "image");
    assert_eq!(hf["messages"][1]["content"][1]["text"], "describe it");
    let path = hf["images"][0].as_str().unwrap();
    assert!(
        std::path::Path::new(path).is_absolute() && path.ends_with(".png"),
        "{path}"
    );
    assert_eq!(BASE64.encode(std::fs::read(path).unwrap()), data);

    let sharegpt = export("sharegpt");
    assert_eq!(sharegpt["conversations"][0]["value"], "<image>describe it");
    assert_eq!(sharegpt["images"][0], path);

    // Without its image file the record is skipped, with the reason.
    std::fs::remove_file(path).unwrap();
    let out = env.oc(&server).args(["export-ft"]).assert().success();
    assert!(out.get_output().stdout.is_empty());
    assert!(
        stderr_of(&out).contains("its images cannot be exported"),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn images_are_turned_upright_and_shrunk() {
    let env = TestEnv::new();
    let server = vision_server(vec![Reply::answer("Sky and grass.")]);
    env.oc(&server)
        .args(["run", "-m", VISION, "--image"])
        .arg(image_fixture("sideways.jpg"))
        .arg("--image")
        .arg(image_fixture("wide.png"))
        .arg("compare them")
        .assert()
        .success();
    let sent = sent_images(&server);
    assert_eq!(size_of(&sent[0]), (90, 160), "EXIF orientation 6 applied");
    assert_eq!(size_of(&sent[1]), (1024, 512), "longest side 1024");

    let server = vision_server(vec![Reply::answer("A circle.")]);
    env.oc(&server)
        .args(["run", "-m", VISION, "--image-max-side", "256", "--image"])
        .arg(image_fixture("wide.png"))
        .arg("what is it?")
        .assert()
        .success();
    assert_eq!(size_of(&sent_images(&server)[0]), (256, 128));
}

#[test]
fn a_model_without_vision_is_refused_before_anything_is_sent() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::answer("never")]);
    let out = env
        .oc(&server)
        .args(["run", "--image"])
        .arg(image_fixture("diagram.png"))
        .arg("what is it?")
        .assert()
        .code(2);
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("model `qwen2.5-coder:1.5b` cannot see images"),
        "{stderr}"
    );
    assert!(stderr.contains("`--image` needs `vision`"), "{stderr}");
    assert!(server.chat_requests().is_empty());
}

#[test]
fn bad_images_are_named_and_nothing_is_sent() {
    let env = TestEnv::new();
    let huge = env.work().join("huge.png");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(21 * 1024 * 1024)
        .unwrap();
    let empty = env.work().join("empty.png");
    std::fs::write(&empty, "").unwrap();
    let cases = [
        (
            env.work().join("missing.png").display().to_string(),
            "cannot read the image",
        ),
        (
            image_fixture("not-an-image.png"),
            "is not a PNG, JPEG, WebP or GIF image",
        ),
        (
            image_fixture("truncated.png"),
            "looks like a PNG but cannot be decoded",
        ),
        (huge.display().to_string(), "images may be at most 20 MB"),
        (env.work().display().to_string(), "is not a regular file"),
        ("/dev/zero".to_string(), "is not a regular file"),
        (empty.display().to_string(), "is empty"),
    ];
    for (path, says) in cases {
        let server = vision_server(vec![Reply::answer("never")]);
        let out = env
            .oc(&server)
            .args(["run", "-m", VISION, "--image", &path, "what is it?"])
            .assert()
            .code(2);
        let stderr = stderr_of(&out);
        assert!(
            stderr.contains(says) && stderr.contains(&path),
            "{path}: {stderr}"
        );
        assert!(server.requests().is_empty(), "{path}: nothing sent");
    }
}

#[test]
fn a_resumed_run_sends_the_stored_images_again() {
    let env = TestEnv::new();
    let server = vision_server(vec![Reply::answer("A diagram.")]);
    env.oc(&server)
        .args(["run", "-m", VISION, "--image"])
        .arg(image_fixture("diagram.png"))
        .arg("what is it?")
        .assert()
        .success();
    let server = vision_server(vec![Reply::answer("Red.")]);
    env.oc(&server)
        .args([
            "run",
            "--continue",
            "-m",
            VISION,
            "which colour is the box?",
        ])
        .assert()
        .success();
    let original = std::fs::read(image_fixture("diagram.png")).unwrap();
    assert_eq!(sent_images(&server), [BASE64.encode(original)]);

    // Not to a model that cannot see them.
    let blind = FakeOllama::start(vec![Reply::answer("never")]);
    let out = env
        .oc(&blind)
        .args(["run", "--continue", "and now?"])
        .assert()
        .code(2);
    assert!(stderr_of(&out).contains("the session goes on from messages with images"));
    assert!(blind.chat_requests().is_empty());

    // A stored image that is gone is named, with what to do.
    for entry in std::fs::read_dir(env.home.path().join("images")).unwrap() {
        std::fs::remove_file(entry.unwrap().path()).unwrap();
    }
    let out = env
        .oc(&server)
        .args(["run", "--continue", "-m", VISION, "and now?"])
        .assert()
        .code(2);
    let stderr = stderr_of(&out);
    assert!(stderr.contains("cannot read the stored image"), "{stderr}");
    assert!(stderr.contains("put the image back there"), "{stderr}");
}
