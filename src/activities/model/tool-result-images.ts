import type { ModelMessage, ToolResultOutput } from '../../protocol';

/** An image a tool returned, as a URL the model APIs take (a `data:` URL for inline data). */
export interface ToolResultImage {
  toolName: string;
  url: string;
}

/**
 * The images in a tool message's results (`content` outputs with `image-data` or `image-url` parts, as MCP tools
 * return them). Tool messages carry text only in both model APIs, so the images follow them in a user message of
 * their own: without it the model would read `[image-data]` and never see what the tool returned.
 */
export function toolResultImages(message: Extract<ModelMessage, { role: 'tool' }>): ToolResultImage[] {
  return message.content.flatMap((part) =>
    part.type === 'tool-result' ? imagesOf(part.output).map((url) => ({ toolName: part.toolName, url })) : [],
  );
}

function imagesOf(output: ToolResultOutput): string[] {
  if (output.type !== 'content') return [];
  return output.value.flatMap((part) => {
    const { type, data, mediaType, url } = part as { type: string; data?: unknown; mediaType?: unknown; url?: unknown };
    if (type === 'image-data' && typeof data === 'string' && data.length > 0) {
      const media = typeof mediaType === 'string' && mediaType.startsWith('image/') ? mediaType : 'image/png';
      return [`data:${media};base64,${data}`];
    }
    if (type === 'image-url' && typeof url === 'string' && /^https?:|^data:image\//.test(url)) return [url];
    return [];
  });
}

/** The sentence that introduces the images, naming the tools they came from. */
export function toolImagesIntroduction(images: readonly ToolResultImage[]): string {
  const tools = [...new Set(images.map((image) => image.toolName))].join(', ');
  return `The ${images.length === 1 ? 'image' : `${images.length} images`} returned by ${tools} in the tool results above:`;
}
