//! A small CPU renderer for egui_kittest snapshots: egui's tessellated
//! triangles filled one pixel at a time, colours and texture (the font
//! atlas) interpolated across each, blended premultiplied in gamma space
//! as egui's own painters do. No GPU and no wgpu, so the snapshots draw the same on any
//! machine the tests run on.

use std::collections::HashMap;

use egui::{
    Color32, TextureId, TexturesDelta,
    epaint::{ClippedPrimitive, ImageData, Mesh, Primitive, Vertex},
};
use egui_kittest::TestRenderer;
use image::RgbaImage;

/// One texture: its width, height and texels.
struct Texture {
    size: [usize; 2],
    texels: Vec<Color32>,
}

/// Renders a harness's frames into an RGBA image on the CPU.
#[derive(Default)]
pub struct CpuRenderer {
    textures: HashMap<TextureId, Texture>,
}

impl TestRenderer for CpuRenderer {
    fn handle_delta(&mut self, delta: &mut TexturesDelta) {
        for (id, images) in delta.set.drain() {
            for delta in images {
                let ImageData::Color(image) = &delta.image;
                match delta.pos {
                    None => {
                        let texels = image.pixels.clone();
                        self.textures.insert(id, Texture { size: image.size, texels });
                    }
                    Some([x0, y0]) => {
                        let Some(texture) = self.textures.get_mut(&id) else { continue };
                        for y in 0..image.size[1] {
                            for x in 0..image.size[0] {
                                let (tx, ty) = (x0 + x, y0 + y);
                                if tx < texture.size[0] && ty < texture.size[1] {
                                    texture.texels[ty * texture.size[0] + tx] =
                                        image.pixels[y * image.size[0] + x];
                                }
                            }
                        }
                    }
                }
            }
        }
        for id in delta.free.drain() {
            self.textures.remove(&id);
        }
    }

    fn render(
        &mut self,
        ctx: &egui::Context,
        output: &egui::FullOutput,
    ) -> Result<RgbaImage, String> {
        let ppp = ctx.pixels_per_point();
        let size = ctx.content_rect().size() * ppp;
        let (width, height) = (size.x.round() as usize, size.y.round() as usize);
        let background = ctx.global_style().visuals.panel_fill;
        let mut target = vec![[0f32; 4]; width * height];
        let fill = unit(background);
        target.fill([fill[0], fill[1], fill[2], 1.0]);
        for ClippedPrimitive { clip_rect, primitive } in ctx.tessellate(output.shapes.clone(), ppp)
        {
            let Primitive::Mesh(mesh) = primitive else { continue };
            let clip = [
                (clip_rect.min.x * ppp).max(0.0),
                (clip_rect.min.y * ppp).max(0.0),
                (clip_rect.max.x * ppp).min(width as f32),
                (clip_rect.max.y * ppp).min(height as f32),
            ];
            self.mesh(&mut target, width, &mesh, clip, ppp);
        }
        let mut image = RgbaImage::new(width as u32, height as u32);
        for (pixel, rgba) in image.pixels_mut().zip(&target) {
            let byte = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
            pixel.0 = [byte(rgba[0]), byte(rgba[1]), byte(rgba[2]), 255];
        }
        Ok(image)
    }
}

impl CpuRenderer {
    fn mesh(&self, target: &mut [[f32; 4]], width: usize, mesh: &Mesh, clip: [f32; 4], ppp: f32) {
        let texture = self.textures.get(&mesh.texture_id);
        for triangle in mesh.indices.chunks_exact(3) {
            let vertex = |i: u32| mesh.vertices.get(i as usize).copied();
            let (Some(a), Some(b), Some(c)) =
                (vertex(triangle[0]), vertex(triangle[1]), vertex(triangle[2]))
            else {
                continue;
            };
            fill_triangle(target, width, [a, b, c], clip, ppp, texture);
        }
    }
}

/// A colour's premultiplied channels, 0 to 1, in gamma space.
fn unit(colour: Color32) -> [f32; 4] {
    colour.to_array().map(|c| f32::from(c) / 255.0)
}

/// A texel at `uv` (0..1), nearest.
fn sample(texture: Option<&Texture>, uv: egui::Pos2) -> [f32; 4] {
    let Some(texture) = texture else { return [1.0; 4] };
    let [w, h] = texture.size;
    let x = ((uv.x * w as f32) as usize).min(w.saturating_sub(1));
    let y = ((uv.y * h as f32) as usize).min(h.saturating_sub(1));
    texture.texels.get(y * w + x).map_or([1.0; 4], |t| unit(*t))
}

fn fill_triangle(
    target: &mut [[f32; 4]],
    width: usize,
    [a, b, c]: [Vertex; 3],
    clip: [f32; 4],
    ppp: f32,
    texture: Option<&Texture>,
) {
    let p = |v: &Vertex| (v.pos.x * ppp, v.pos.y * ppp);
    let (pa, pb, pc) = (p(&a), p(&b), p(&c));
    let area = (pb.0 - pa.0) * (pc.1 - pa.1) - (pb.1 - pa.1) * (pc.0 - pa.0);
    if area.abs() < 1e-6 {
        return;
    }
    let min_x = pa.0.min(pb.0).min(pc.0).max(clip[0]).floor() as usize;
    let max_x = pa.0.max(pb.0).max(pc.0).min(clip[2]).ceil() as usize;
    let min_y = pa.1.min(pb.1).min(pc.1).max(clip[1]).floor() as usize;
    let max_y = pa.1.max(pb.1).max(pc.1).min(clip[3]).ceil() as usize;
    let (ca, cb, cc) = (unit(a.color), unit(b.color), unit(c.color));
    for y in min_y..max_y {
        for x in min_x..max_x {
            let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
            let w0 = ((pb.0 - px) * (pc.1 - py) - (pb.1 - py) * (pc.0 - px)) / area;
            let w1 = ((pc.0 - px) * (pa.1 - py) - (pc.1 - py) * (pa.0 - px)) / area;
            let w2 = 1.0 - w0 - w1;
            if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                continue;
            }
            let uv = egui::pos2(
                a.uv.x * w0 + b.uv.x * w1 + c.uv.x * w2,
                a.uv.y * w0 + b.uv.y * w1 + c.uv.y * w2,
            );
            let texel = sample(texture, uv);
            let colour: [f32; 4] =
                std::array::from_fn(|i| (ca[i] * w0 + cb[i] * w1 + cc[i] * w2) * texel[i]);
            let Some(dst) = target.get_mut(y * width + x) else { continue };
            // Premultiplied alpha: source over.
            let keep = 1.0 - colour[3];
            *dst = [
                colour[0] + dst[0] * keep,
                colour[1] + dst[1] * keep,
                colour[2] + dst[2] * keep,
                1.0,
            ];
        }
    }
}
